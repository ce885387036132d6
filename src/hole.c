// SPDX-License-Identifier: GPL-2.0
/* ext2hole: the hole API (stub, being written) */
#include "ext2hole.h"

int ext2hole_prepare_hole(struct inode *inode, loff_t from, loff_t to,
			  get_block_t *get_block)
{
	return 0;
}

void ext2hole_finish_hole(struct inode *inode, loff_t from, loff_t to)
{
}

vm_fault_t ext2hole_noalloc_page_mkwrite(struct vm_fault *vmf)
{
	return block_page_mkwrite_return(-EINVAL);
}

vm_fault_t ext2hole_alloc_page_mkwrite(struct vm_fault *vmf,
				       get_block_t *get_block)
{
	return block_page_mkwrite_return(-EINVAL);
}

int ext2hole_write_full_page(struct page *page, get_block_t *get_block,
			     struct writeback_control *wbc)
{
	return block_write_full_page(page, get_block, wbc);
}

int ext2hole_writepages(struct address_space *mapping,
			struct writeback_control *wbc, get_block_t *get_block)
{
	return 0;
}
