/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ext2hole tracepoints: one event per hole-API entry point, under
 * /sys/kernel/tracing/events/ext2hole/.  CREATE_TRACE_POINTS is defined in
 * src/hole.c only.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM ext2hole

#if !defined(_EXT2HOLE_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _EXT2HOLE_TRACE_H

#include <linux/tracepoint.h>
#include <linux/fs.h>

TRACE_EVENT(ext2hole_prepare_hole,
	TP_PROTO(struct inode *inode, loff_t from, loff_t to, bool dirtied,
		 int ret),
	TP_ARGS(inode, from, to, dirtied, ret),
	TP_STRUCT__entry(
		__field(dev_t, dev)
		__field(unsigned long, ino)
		__field(loff_t, from)
		__field(loff_t, to)
		__field(bool, dirtied)
		__field(int, ret)
	),
	TP_fast_assign(
		__entry->dev = inode->i_sb->s_dev;
		__entry->ino = inode->i_ino;
		__entry->from = from;
		__entry->to = to;
		__entry->dirtied = dirtied;
		__entry->ret = ret;
	),
	TP_printk("dev %d:%d ino %lu from %lld to %lld dirtied %d ret %d",
		  MAJOR(__entry->dev), MINOR(__entry->dev), __entry->ino,
		  __entry->from, __entry->to, __entry->dirtied, __entry->ret)
);

TRACE_EVENT(ext2hole_finish_hole,
	TP_PROTO(struct inode *inode, loff_t from, loff_t to, bool wrprotected),
	TP_ARGS(inode, from, to, wrprotected),
	TP_STRUCT__entry(
		__field(dev_t, dev)
		__field(unsigned long, ino)
		__field(loff_t, from)
		__field(loff_t, to)
		__field(bool, wrprotected)
	),
	TP_fast_assign(
		__entry->dev = inode->i_sb->s_dev;
		__entry->ino = inode->i_ino;
		__entry->from = from;
		__entry->to = to;
		__entry->wrprotected = wrprotected;
	),
	TP_printk("dev %d:%d ino %lu from %lld to %lld wrprotected %d",
		  MAJOR(__entry->dev), MINOR(__entry->dev), __entry->ino,
		  __entry->from, __entry->to, __entry->wrprotected)
);

TRACE_EVENT(ext2hole_page_mkwrite,
	TP_PROTO(struct inode *inode, pgoff_t index, bool alloc, int err,
		 vm_fault_t ret),
	TP_ARGS(inode, index, alloc, err, ret),
	TP_STRUCT__entry(
		__field(dev_t, dev)
		__field(unsigned long, ino)
		__field(pgoff_t, index)
		__field(loff_t, size)
		__field(bool, alloc)
		__field(int, err)
		__field(unsigned int, ret)
	),
	TP_fast_assign(
		__entry->dev = inode->i_sb->s_dev;
		__entry->ino = inode->i_ino;
		__entry->index = index;
		__entry->size = i_size_read(inode);
		__entry->alloc = alloc;
		__entry->err = err;
		__entry->ret = (__force unsigned int)ret;
	),
	TP_printk("dev %d:%d ino %lu index %lu i_size %lld policy %s err %d ret 0x%x",
		  MAJOR(__entry->dev), MINOR(__entry->dev), __entry->ino,
		  (unsigned long)__entry->index, __entry->size,
		  __entry->alloc ? "alloc" : "noalloc", __entry->err,
		  __entry->ret)
);

TRACE_EVENT(ext2hole_write_full_page,
	TP_PROTO(struct inode *inode, pgoff_t index, int nr_submitted,
		 int nr_delayed, int err),
	TP_ARGS(inode, index, nr_submitted, nr_delayed, err),
	TP_STRUCT__entry(
		__field(dev_t, dev)
		__field(unsigned long, ino)
		__field(pgoff_t, index)
		__field(loff_t, size)
		__field(int, nr_submitted)
		__field(int, nr_delayed)
		__field(int, err)
	),
	TP_fast_assign(
		__entry->dev = inode->i_sb->s_dev;
		__entry->ino = inode->i_ino;
		__entry->index = index;
		__entry->size = i_size_read(inode);
		__entry->nr_submitted = nr_submitted;
		__entry->nr_delayed = nr_delayed;
		__entry->err = err;
	),
	TP_printk("dev %d:%d ino %lu index %lu i_size %lld submitted %d delayed %d err %d",
		  MAJOR(__entry->dev), MINOR(__entry->dev), __entry->ino,
		  (unsigned long)__entry->index, __entry->size,
		  __entry->nr_submitted, __entry->nr_delayed, __entry->err)
);

#endif /* _EXT2HOLE_TRACE_H */

/* This part must be outside the include guard. */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace
#include <trace/define_trace.h>
