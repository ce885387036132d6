// SPDX-License-Identifier: GPL-2.0
/* ext2hole: address space operations (stub, being written) */
#include "ext2hole.h"

const struct address_space_operations ext2hole_aops = {
};
