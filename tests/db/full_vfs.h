/*
 * full_vfs.h: a full disk on demand, for tests: an SQLite VFS that wraps
 * the default one and, when told to, fails as a full disk makes the unix
 * VFS fail: a write with SQLITE_FULL, an fsync or a truncate with an I/O
 * error whose system error (sqlite3_system_errno) is ENOSPC.  Or a small
 * volume: a quota on the bytes the database file and its write-ahead log
 * take together, past which a write that grows a file fails with
 * SQLITE_FULL (truncating gives the space back, as on a real disk).
 *
 * Installed as SQLite's default VFS, it serves every connection opened
 * afterwards (db_open's, the test server's); until told to fail it passes
 * everything through.  Process-wide: one test at a time.
 */
#ifndef UMPIRE_TESTS_FULL_VFS_H
#define UMPIRE_TESTS_FULL_VFS_H

#include <stdbool.h>

/* What fails (full_vfs_fail); 0 for nothing. */
#define FULL_VFS_WRITE    1u /* xWrite: SQLITE_FULL */
#define FULL_VFS_SYNC     2u /* xSync: SQLITE_IOERR_FSYNC, ENOSPC */
#define FULL_VFS_TRUNCATE 4u /* xTruncate: SQLITE_IOERR_TRUNCATE, ENOSPC */

/* Registers the shim as the default VFS (healthy, no quota, no files
 * seen); full_vfs_uninstall makes the one before it the default again. */
void full_vfs_install(void);
void full_vfs_uninstall(void);

/* From now on, these operations fail (FULL_VFS_* or'ed; 0: none). */
void full_vfs_fail(unsigned what);

/* The most bytes the database files (main and -wal) may take together,
 * or 0 for no limit. */
void full_vfs_set_quota(long long bytes);

/* From now on, each write of a database file (not its log: what a
 * checkpoint writes) first sleeps us microseconds (0: none). */
void full_vfs_slow_db_writes(unsigned us);

/* The bytes the database files seen so far take now. */
long long full_vfs_used(void);

/* How many operations the shim has refused so far. */
unsigned long full_vfs_n_refused(void);

/* How many writes reached the shim on write-ahead logs so far (the calls
 * the kernel would have seen). */
unsigned long full_vfs_n_log_writes(void);

/* How many writes reached a log after the last shared-memory barrier of
 * a write transaction, before its write lock was let go: after SQLite
 * published its last commit (the commit's header is written between two
 * barriers).  A transaction rolled back may count its own frames here; a
 * commit must not. */
unsigned long full_vfs_n_late_log_writes(void);

/* Whether files say, from now on, that a write leaves the rest of its
 * sector as it was (SQLITE_IOCAP_POWERSAFE_OVERWRITE, which the unix VFS
 * says by default): database files, write-ahead logs (every other file
 * as database files do); false: they do not say it. */
void full_vfs_set_powersafe(bool for_databases, bool for_logs);

#endif
