# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Sourced (bash): the host's Debian mirrors, for debootstrap roots.  The
# discovery scripts/check-dkms.sh and scripts/fstests-root.sh use: whatever
# the host's APT uses.
#   host_mirror ""|-updates|-security   print the mirror URI for that suite
# Needs SUITE (e.g. bookworm).

# Print "deb URI SUITE" for every active APT source of the host, one-line
# (.list) and deb822 (.sources) formats alike.
host_sources() {
	local f
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[ -f "$f" ] || continue
		sed -e 's/#.*//' -e 's/\[[^]]*\]//' "$f" |
			awk '$1 == "deb" && NF >= 3 { print "deb", $2, $3 }'
	done
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		awk '
		function flush(  i, j, nu, ns, u, s) {
			if (types ~ /(^| )deb( |$)/ && enabled !~ /^[Nn]o/) {
				nu = split(uris, u, " "); ns = split(suites, s, " ")
				for (i = 1; i <= nu; i++)
					for (j = 1; j <= ns; j++)
						print "deb", u[i], s[j]
			}
			types = uris = suites = enabled = ""; last = ""
		}
		/^[ \t]*#/ { next }
		/^[ \t]*$/ { flush(); next }
		/^[ \t]/ { if (last == "uris") uris = uris " " $0
			   else if (last == "suites") suites = suites " " $0
			   next }
		{
			key = tolower($0); sub(/:.*/, "", key)
			val = $0; sub(/^[^:]*:[ \t]*/, "", val)
			last = ""
			if (key == "types") types = val
			else if (key == "uris") { uris = val; last = "uris" }
			else if (key == "suites") { suites = val; last = "suites" }
			else if (key == "enabled") enabled = val
		}
		END { flush() }' "$f"
	done
}

host_mirror() {
	local suffix=$1 codename
	# shellcheck source=/dev/null
	codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-$SUITE}")
	host_sources | awk -v a="$codename$suffix" -v b="$SUITE$suffix" \
		'$3 == a || $3 == b { print $2; exit }'
}
