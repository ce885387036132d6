/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ext2hole on-disk format: the plain ext2 revision 1 layout.
 *
 * Every field is little-endian on disk.  This header is usable from
 * userspace test tools too (hostile-image mutator, image checkers):
 * kernel-only parts stay under __KERNEL__.
 */
#ifndef _EXT2HOLE_FS_H
#define _EXT2HOLE_FS_H

#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/stddef.h>
#include <linux/build_bug.h>
#else
#include <assert.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/types.h>	/* __u8, __le16, __le32: the kernel's uapi types */
#ifndef static_assert
#define static_assert _Static_assert
#endif
#endif

#define EXT2HOLE_SUPER_MAGIC		0xEF53
#define EXT2HOLE_SB_OFFSET		1024	/* bytes from the device start */

#define EXT2HOLE_MIN_BLOCK_LOG_SIZE	10
#define EXT2HOLE_MAX_BLOCK_LOG_SIZE	12	/* 1, 2 and 4 KiB blocks */
#define EXT2HOLE_MIN_BLOCK_SIZE		(1 << EXT2HOLE_MIN_BLOCK_LOG_SIZE)
#define EXT2HOLE_MAX_BLOCK_SIZE		(1 << EXT2HOLE_MAX_BLOCK_LOG_SIZE)

/* Reserved inode numbers */
#define EXT2HOLE_BAD_INO		1
#define EXT2HOLE_ROOT_INO		2
#define EXT2HOLE_RESIZE_INO		7
#define EXT2HOLE_GOOD_OLD_FIRST_INO	11
#define EXT2HOLE_GOOD_OLD_INODE_SIZE	128

/* Revision levels */
#define EXT2HOLE_GOOD_OLD_REV		0
#define EXT2HOLE_DYNAMIC_REV		1

/* Block pointers in the inode */
#define EXT2HOLE_NDIR_BLOCKS		12
#define EXT2HOLE_IND_BLOCK		EXT2HOLE_NDIR_BLOCKS
#define EXT2HOLE_DIND_BLOCK		(EXT2HOLE_IND_BLOCK + 1)
#define EXT2HOLE_TIND_BLOCK		(EXT2HOLE_DIND_BLOCK + 1)
#define EXT2HOLE_N_BLOCKS		(EXT2HOLE_TIND_BLOCK + 1)

/* s_state */
#define EXT2HOLE_VALID_FS		0x0001
#define EXT2HOLE_ERROR_FS		0x0002

/* s_errors */
#define EXT2HOLE_ERRORS_CONTINUE	1
#define EXT2HOLE_ERRORS_RO		2
#define EXT2HOLE_ERRORS_PANIC		3

/* s_feature_compat */
#define EXT2HOLE_FEATURE_COMPAT_DIR_PREALLOC	0x0001
#define EXT2HOLE_FEATURE_COMPAT_IMAGIC_INODES	0x0002
#define EXT2HOLE_FEATURE_COMPAT_HAS_JOURNAL	0x0004
#define EXT2HOLE_FEATURE_COMPAT_EXT_ATTR	0x0008
#define EXT2HOLE_FEATURE_COMPAT_RESIZE_INO	0x0010
#define EXT2HOLE_FEATURE_COMPAT_DIR_INDEX	0x0020

/* s_feature_ro_compat */
#define EXT2HOLE_FEATURE_RO_COMPAT_SPARSE_SUPER	0x0001
#define EXT2HOLE_FEATURE_RO_COMPAT_LARGE_FILE	0x0002
#define EXT2HOLE_FEATURE_RO_COMPAT_BTREE_DIR	0x0004

/* s_feature_incompat */
#define EXT2HOLE_FEATURE_INCOMPAT_COMPRESSION	0x0001
#define EXT2HOLE_FEATURE_INCOMPAT_FILETYPE	0x0002
#define EXT2HOLE_FEATURE_INCOMPAT_RECOVER	0x0004
#define EXT2HOLE_FEATURE_INCOMPAT_JOURNAL_DEV	0x0008
#define EXT2HOLE_FEATURE_INCOMPAT_META_BG	0x0010

/* What ext2hole understands; anything else is refused or forces ro. */
#define EXT2HOLE_FEATURE_COMPAT_SUPP	(EXT2HOLE_FEATURE_COMPAT_DIR_PREALLOC | \
					 EXT2HOLE_FEATURE_COMPAT_IMAGIC_INODES | \
					 EXT2HOLE_FEATURE_COMPAT_EXT_ATTR | \
					 EXT2HOLE_FEATURE_COMPAT_RESIZE_INO | \
					 EXT2HOLE_FEATURE_COMPAT_DIR_INDEX)
#define EXT2HOLE_FEATURE_RO_COMPAT_SUPP	(EXT2HOLE_FEATURE_RO_COMPAT_SPARSE_SUPER | \
					 EXT2HOLE_FEATURE_RO_COMPAT_LARGE_FILE)
#define EXT2HOLE_FEATURE_INCOMPAT_SUPP	(EXT2HOLE_FEATURE_INCOMPAT_FILETYPE)

/**
 * struct ext2hole_super_block - the superblock, 1024 bytes at byte 1024
 */
struct ext2hole_super_block {
	__le32	s_inodes_count;		/* 0x000 */
	__le32	s_blocks_count;		/* 0x004 */
	__le32	s_r_blocks_count;	/* 0x008 reserved for root */
	__le32	s_free_blocks_count;	/* 0x00c */
	__le32	s_free_inodes_count;	/* 0x010 */
	__le32	s_first_data_block;	/* 0x014 1 for 1 KiB blocks, else 0 */
	__le32	s_log_block_size;	/* 0x018 block size = 1024 << this */
	__le32	s_log_frag_size;	/* 0x01c */
	__le32	s_blocks_per_group;	/* 0x020 */
	__le32	s_frags_per_group;	/* 0x024 */
	__le32	s_inodes_per_group;	/* 0x028 */
	__le32	s_mtime;		/* 0x02c */
	__le32	s_wtime;		/* 0x030 */
	__le16	s_mnt_count;		/* 0x034 */
	__le16	s_max_mnt_count;	/* 0x036 */
	__le16	s_magic;		/* 0x038 */
	__le16	s_state;		/* 0x03a */
	__le16	s_errors;		/* 0x03c */
	__le16	s_minor_rev_level;	/* 0x03e */
	__le32	s_lastcheck;		/* 0x040 */
	__le32	s_checkinterval;	/* 0x044 */
	__le32	s_creator_os;		/* 0x048 */
	__le32	s_rev_level;		/* 0x04c */
	__le16	s_def_resuid;		/* 0x050 */
	__le16	s_def_resgid;		/* 0x052 */
	/* EXT2HOLE_DYNAMIC_REV only */
	__le32	s_first_ino;		/* 0x054 first non-reserved inode */
	__le16	s_inode_size;		/* 0x058 */
	__le16	s_block_group_nr;	/* 0x05a group of this superblock copy */
	__le32	s_feature_compat;	/* 0x05c */
	__le32	s_feature_incompat;	/* 0x060 */
	__le32	s_feature_ro_compat;	/* 0x064 */
	__u8	s_uuid[16];		/* 0x068 */
	char	s_volume_name[16];	/* 0x078 */
	char	s_last_mounted[64];	/* 0x088 */
	__le32	s_algorithm_usage_bitmap; /* 0x0c8 */
	__u8	s_prealloc_blocks;	/* 0x0cc */
	__u8	s_prealloc_dir_blocks;	/* 0x0cd */
	__le16	s_reserved_gdt_blocks;	/* 0x0ce resize_inode */
	__u8	s_journal_uuid[16];	/* 0x0d0 */
	__le32	s_journal_inum;		/* 0x0e0 */
	__le32	s_journal_dev;		/* 0x0e4 */
	__le32	s_last_orphan;		/* 0x0e8 */
	__le32	s_hash_seed[4];		/* 0x0ec dir_index */
	__u8	s_def_hash_version;	/* 0x0fc */
	__u8	s_jnl_backup_type;	/* 0x0fd */
	__le16	s_desc_size;		/* 0x0fe 64bit only */
	__le32	s_default_mount_opts;	/* 0x100 */
	__le32	s_first_meta_bg;	/* 0x104 */
	__le32	s_mkfs_time;		/* 0x108 */
	__le32	s_jnl_blocks[17];	/* 0x10c */
	__le32	s_blocks_count_hi;	/* 0x150 64bit only */
	__le32	s_r_blocks_count_hi;	/* 0x154 64bit only */
	__le32	s_free_blocks_hi;	/* 0x158 64bit only */
	__le16	s_min_extra_isize;	/* 0x15c every inode has this i_extra_isize */
	__le16	s_want_extra_isize;	/* 0x15e new inodes should get this much */
	__le32	s_flags;		/* 0x160 EXT2HOLE_FLAGS_* */
	__le32	s_reserved[167];	/* 0x164 up to 0x400 */
};
static_assert(sizeof(struct ext2hole_super_block) == 1024);

/* s_flags: how the creator widened name bytes for the dir_index hashes */
#define EXT2HOLE_FLAGS_SIGNED_HASH	0x0001
#define EXT2HOLE_FLAGS_UNSIGNED_HASH	0x0002

/**
 * struct ext2hole_group_desc - one block group descriptor, 32 bytes
 */
struct ext2hole_group_desc {
	__le32	bg_block_bitmap;	/* 0x00 */
	__le32	bg_inode_bitmap;	/* 0x04 */
	__le32	bg_inode_table;		/* 0x08 */
	__le16	bg_free_blocks_count;	/* 0x0c */
	__le16	bg_free_inodes_count;	/* 0x0e */
	__le16	bg_used_dirs_count;	/* 0x10 */
	__le16	bg_flags;		/* 0x12 */
	__le32	bg_reserved[3];		/* 0x14 */
};
static_assert(sizeof(struct ext2hole_group_desc) == 32);

/**
 * struct ext2hole_inode - the on-disk inode, first 128 bytes
 *
 * Revision 1 images may have larger inodes (s_inode_size, 256 by default
 * on Debian 12): struct ext2hole_inode_extra follows, then in-inode
 * extended attributes.
 */
struct ext2hole_inode {
	__le16	i_mode;			/* 0x00 */
	__le16	i_uid;			/* 0x02 low 16 bits */
	__le32	i_size;			/* 0x04 low 32 bits */
	__le32	i_atime;		/* 0x08 */
	__le32	i_ctime;		/* 0x0c */
	__le32	i_mtime;		/* 0x10 */
	__le32	i_dtime;		/* 0x14 deletion time */
	__le16	i_gid;			/* 0x18 low 16 bits */
	__le16	i_links_count;		/* 0x1a */
	__le32	i_blocks;		/* 0x1c in 512-byte units */
	__le32	i_flags;		/* 0x20 */
	__le32	i_osd1;			/* 0x24 */
	__le32	i_block[EXT2HOLE_N_BLOCKS]; /* 0x28 block pointers */
	__le32	i_generation;		/* 0x64 */
	__le32	i_file_acl;		/* 0x68 xattr block */
	__le32	i_size_high;		/* 0x6c i_dir_acl in rev 0 */
	__le32	i_faddr;		/* 0x70 */
	__u8	i_frag;			/* 0x74 */
	__u8	i_fsize;		/* 0x75 */
	__le16	i_pad1;			/* 0x76 */
	__le16	i_uid_high;		/* 0x78 */
	__le16	i_gid_high;		/* 0x7a */
	__le32	i_reserved2;		/* 0x7c */
};
static_assert(sizeof(struct ext2hole_inode) == 128);

/**
 * struct ext2hole_inode_extra - ext4's fields after the first 128 bytes
 *
 * In inodes larger than 128 bytes, i_extra_isize says how many bytes from
 * byte 128 on are these fields (a multiple of 4; mke2fs and the ext4
 * driver give 32, all of them); a field is there only when it lies wholly
 * inside i_extra_isize (EXT2HOLE_EXTRA_FITS).  Offsets are from the start
 * of the inode.
 *
 * A time's extra word is ext4's: bits 0-1 extend the signed 32-bit
 * seconds (the epoch: seconds += epoch << 32), bits 2-31 are nanoseconds.
 */
struct ext2hole_inode_extra {
	__le16	i_extra_isize;		/* 0x80 */
	__le16	i_checksum_hi;		/* 0x82 metadata_csum only */
	__le32	i_ctime_extra;		/* 0x84 */
	__le32	i_mtime_extra;		/* 0x88 */
	__le32	i_atime_extra;		/* 0x8c */
	__le32	i_crtime;		/* 0x90 birth time, seconds */
	__le32	i_crtime_extra;		/* 0x94 */
	__le32	i_version_hi;		/* 0x98 */
	__le32	i_projid;		/* 0x9c */
};
static_assert(sizeof(struct ext2hole_inode_extra) == 32);

/* The extra fields of the inode at @raw (inode size > 128). */
#define EXT2HOLE_INODE_EXTRA(raw) \
	((struct ext2hole_inode_extra *)((char *)(raw) + \
					 EXT2HOLE_GOOD_OLD_INODE_SIZE))
/* Does an i_extra_isize of @extra cover @field? */
#define EXT2HOLE_EXTRA_FITS(extra, field) \
	(offsetof(struct ext2hole_inode_extra, field) + \
	 sizeof(((struct ext2hole_inode_extra *)0)->field) <= (extra))
/* i_extra_isize for new inodes at least (all of the fields above). */
#define EXT2HOLE_WANT_EXTRA_ISIZE	32

#define EXT2HOLE_EPOCH_BITS		2
#define EXT2HOLE_EPOCH_MASK		((1U << EXT2HOLE_EPOCH_BITS) - 1)
/* Time range: 32-bit seconds, or with the epoch bits (1901 to 2446). */
#define EXT2HOLE_TIME_MIN		(-0x7fffffffLL - 1)
#define EXT2HOLE_TIME_MAX_32		0x7fffffffLL
#define EXT2HOLE_TIME_MAX_EXTRA		(0x7fffffffLL + (3LL << 32))

/* i_flags */
#define EXT2HOLE_SECRM_FL		0x00000001
#define EXT2HOLE_UNRM_FL		0x00000002
#define EXT2HOLE_COMPR_FL		0x00000004
#define EXT2HOLE_SYNC_FL		0x00000008
#define EXT2HOLE_IMMUTABLE_FL		0x00000010
#define EXT2HOLE_APPEND_FL		0x00000020
#define EXT2HOLE_NODUMP_FL		0x00000040
#define EXT2HOLE_NOATIME_FL		0x00000080
#define EXT2HOLE_INDEX_FL		0x00001000	/* htree directory */
#define EXT2HOLE_DIRSYNC_FL		0x00010000
#define EXT2HOLE_TOPDIR_FL		0x00020000

/**
 * struct ext2hole_dir_entry - a directory entry (filetype feature layout)
 *
 * Without the filetype feature, name_len is a __le16 and file_type is 0:
 * readers take name_len as the low byte and ignore file_type then.
 */
struct ext2hole_dir_entry {
	__le32	inode;			/* 0x0 0 = unused entry */
	__le16	rec_len;		/* 0x4 */
	__u8	name_len;		/* 0x6 */
	__u8	file_type;		/* 0x7 */
	char	name[];			/* 0x8 up to 255 bytes, not NUL-ended */
};
static_assert(sizeof(struct ext2hole_dir_entry) == 8);

#define EXT2HOLE_NAME_LEN		255

/*
 * Indexed (dir_index, "htree") directories.  Block 0 is a dx_root: '.'
 * and '..' entries, '..' covering the rest of the block, whose slack holds
 * struct ext2hole_dx_root_info and then the root's dx entries.  With one
 * indirect level, the root's entries point at dx_node blocks (one unused
 * entry covering the block, then dx entries); the last level's entries
 * point at leaves, ordinary entry blocks.  The first dx entry's hash field
 * holds the limit and count of the array instead (its hash is 0).
 */
#define EXT2HOLE_DX_HASH_LEGACY			0
#define EXT2HOLE_DX_HASH_HALF_MD4		1
#define EXT2HOLE_DX_HASH_TEA			2
#define EXT2HOLE_DX_HASH_LEGACY_UNSIGNED	3
#define EXT2HOLE_DX_HASH_HALF_MD4_UNSIGNED	4
#define EXT2HOLE_DX_HASH_TEA_UNSIGNED		5

#define EXT2HOLE_DX_MAX_LEVELS		2	/* indirect_levels 0 or 1 */
#define EXT2HOLE_DX_HASH_FLAG_INCOMPAT	0x1	/* in unused_flags */

struct ext2hole_dx_root_info {
	__le32	reserved_zero;		/* 0x18 in block 0 */
	__u8	hash_version;		/* 0x1c EXT2HOLE_DX_HASH_* (signed) */
	__u8	info_length;		/* 0x1d 8 */
	__u8	indirect_levels;	/* 0x1e */
	__u8	unused_flags;		/* 0x1f */
};
static_assert(sizeof(struct ext2hole_dx_root_info) == 8);

struct ext2hole_dx_entry {
	__le32	hash;			/* low bit: continued collision */
	__le32	block;			/* logical block in the directory */
};

struct ext2hole_dx_countlimit {
	__le16	limit;			/* entries that fit */
	__le16	count;			/* entries in use, this one included */
};

/* Offsets of the dx entries in a dx_root and in a dx_node block. */
#define EXT2HOLE_DX_ROOT_INFO_OFFS	24
#define EXT2HOLE_DX_ROOT_ENTRIES_OFFS	32
#define EXT2HOLE_DX_NODE_ENTRIES_OFFS	8
#define EXT2HOLE_DIR_PAD		4
#define EXT2HOLE_DIR_REC_LEN(name_len)	(((name_len) + 8 + 3) & ~3)
#define EXT2HOLE_MAX_REC_LEN		((1 << 16) - 1)

/* file_type in a directory entry */
enum {
	EXT2HOLE_FT_UNKNOWN	= 0,
	EXT2HOLE_FT_REG_FILE	= 1,
	EXT2HOLE_FT_DIR		= 2,
	EXT2HOLE_FT_CHRDEV	= 3,
	EXT2HOLE_FT_BLKDEV	= 4,
	EXT2HOLE_FT_FIFO	= 5,
	EXT2HOLE_FT_SOCK	= 6,
	EXT2HOLE_FT_SYMLINK	= 7,
	EXT2HOLE_FT_MAX
};

/*
 * Extended attributes (ext2's format; the in-inode part in ext4's).
 *
 * An xattr block (i_file_acl) starts with struct ext2hole_xattr_header;
 * entries follow from byte 32, each EXT2HOLE_XATTR_LEN(name_len) bytes,
 * the list ending in four zero bytes; values sit at the end of the block,
 * e_value_offs counted from the block start, each padded to 4 bytes.
 *
 * In 256-byte (and larger) inodes, the 16-bit i_extra_isize at byte 128
 * says how much of the inode past 128 bytes is inode fields; right after
 * them, a struct ext2hole_xattr_ibody_header and the same entry list,
 * with values counted from the first entry and ending at the inode's end.
 * i_extra_isize 0 means no in-inode attributes.
 */
struct ext2hole_xattr_header {
	__le32	h_magic;		/* 0x00 EXT2HOLE_XATTR_MAGIC */
	__le32	h_refcount;		/* 0x04 inodes sharing the block */
	__le32	h_blocks;		/* 0x08 must be 1 */
	__le32	h_hash;			/* 0x0c hash of the entries' hashes */
	__le32	h_reserved[4];		/* 0x10 */
};
static_assert(sizeof(struct ext2hole_xattr_header) == 32);
#define EXT2HOLE_XATTR_MAGIC		0xEA020000
#define EXT2HOLE_XATTR_REFCOUNT_MAX	1024

struct ext2hole_xattr_ibody_header {
	__le32	h_magic;		/* 0x00 EXT2HOLE_XATTR_MAGIC */
};
static_assert(sizeof(struct ext2hole_xattr_ibody_header) == 4);

/**
 * struct ext2hole_xattr_entry - one attribute's name and where its value is
 */
struct ext2hole_xattr_entry {
	__u8	e_name_len;		/* 0x00 */
	__u8	e_name_index;		/* 0x01 EXT2HOLE_XATTR_INDEX_* */
	__le16	e_value_offs;		/* 0x02 */
	__le32	e_value_block;		/* 0x04 must be 0 (ext4: value inode) */
	__le32	e_value_size;		/* 0x08 */
	__le32	e_hash;			/* 0x0c hash of name and value */
	char	e_name[];		/* 0x10 not NUL-ended */
};
static_assert(sizeof(struct ext2hole_xattr_entry) == 16);

#define EXT2HOLE_XATTR_PAD		4
#define EXT2HOLE_XATTR_ROUND		(EXT2HOLE_XATTR_PAD - 1)
#define EXT2HOLE_XATTR_LEN(name_len) \
	(((name_len) + EXT2HOLE_XATTR_ROUND + \
	  sizeof(struct ext2hole_xattr_entry)) & ~EXT2HOLE_XATTR_ROUND)
#define EXT2HOLE_XATTR_SIZE(size) \
	(((size) + EXT2HOLE_XATTR_ROUND) & ~EXT2HOLE_XATTR_ROUND)

/* e_name_index: the namespace prefix left out of e_name */
#define EXT2HOLE_XATTR_INDEX_USER		1
#define EXT2HOLE_XATTR_INDEX_POSIX_ACL_ACCESS	2
#define EXT2HOLE_XATTR_INDEX_POSIX_ACL_DEFAULT	3
#define EXT2HOLE_XATTR_INDEX_TRUSTED		4
#define EXT2HOLE_XATTR_INDEX_LUSTRE		5
#define EXT2HOLE_XATTR_INDEX_SECURITY		6

/*
 * A POSIX ACL as an attribute value: the header, then the entries.
 * ACL_USER and ACL_GROUP entries carry an id (8 bytes); the others
 * (USER_OBJ, GROUP_OBJ, MASK, OTHER) are short (4 bytes).
 */
#define EXT2HOLE_ACL_VERSION		0x0001
struct ext2hole_acl_header {
	__le32	a_version;		/* 0x0 EXT2HOLE_ACL_VERSION */
};
struct ext2hole_acl_entry {
	__le16	e_tag;			/* 0x0 ACL_USER_OBJ ... */
	__le16	e_perm;			/* 0x2 */
	__le32	e_id;			/* 0x4 uid or gid */
};
struct ext2hole_acl_entry_short {
	__le16	e_tag;			/* 0x0 */
	__le16	e_perm;			/* 0x2 */
};
static_assert(sizeof(struct ext2hole_acl_entry) == 8);
static_assert(sizeof(struct ext2hole_acl_entry_short) == 4);

/* s_default_mount_opts bits that ext2hole honours */
#define EXT2HOLE_DEFM_BSDGROUPS		0x0002
#define EXT2HOLE_DEFM_XATTR_USER	0x0004
#define EXT2HOLE_DEFM_ACL		0x0008
#define EXT2HOLE_DEFM_UID16		0x0010

/* A fast symlink keeps its target in i_block (60 bytes at most). */
#define EXT2HOLE_FAST_SYMLINK_MAX	(EXT2HOLE_N_BLOCKS * 4)

#endif /* _EXT2HOLE_FS_H */
