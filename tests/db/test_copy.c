/*
 * test_copy.c: what db_copy (db/copy.c) refuses before it copies
 * anything, and db_schema_version_at, on SQLite files alone.  The copy
 * itself, into a PostgreSQL server, is tests/pg/copy.sh's.
 *
 * Refused, the source left as it was: a source that does not exist
 * (nothing created), one that is not an umpire database, one newer than
 * this build, a destination that is not a PostgreSQL URL, and one that
 * cannot be reached (the source, of an old schema, is not migrated for
 * nothing).
 */
#include "db_fixture.h"
#include "migrations.h"
#include "suites.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <check.h>

/* Nothing listens there: a connection is refused at once. */
#define UNREACHABLE "postgresql://umpire@127.0.0.1:1/umpire?connect_timeout=2"

/* Makes db_fixture_path a database of schema version 1, empty. */
static void make_v1(void)
{
    sqlite3 *c = NULL;

    ck_assert_int_eq(sqlite3_open(db_fixture_path, &c), SQLITE_OK);
    ck_assert_int_eq(sqlite3_exec(c, migrations_sql[0], NULL, NULL, NULL),
                     SQLITE_OK);
    ck_assert_int_eq(
        sqlite3_exec(c, "PRAGMA user_version = 1", NULL, NULL, NULL),
        SQLITE_OK);
    ck_assert_int_eq(sqlite3_close(c), SQLITE_OK);
}

static int version_at(const char *path)
{
    err_info e;
    int v = -1;

    err_clear(&e);
    ck_assert_msg(db_schema_version_at(path, &v, &e) == ERR_OK, "%s",
                  e.message);
    return v;
}

START_TEST(test_schema_version_at)
{
    ck_assert_int_eq(version_at(db_fixture_path), 0);
    ck_assert(!db_fixture_file_exists(db_fixture_path)); /* not created */
    make_v1();
    ck_assert_int_eq(version_at(db_fixture_path), 1);
    db_fixture_open();
    ck_assert_int_eq(version_at(db_fixture_path), db_n_migrations());
}
END_TEST

START_TEST(test_refused_source)
{
    db_copy_info info;
    err_info e;
    FILE *f;

    err_clear(&e);
    ck_assert_int_eq(db_copy(db_fixture_path, UNREACHABLE, &info, &e),
                     ERR_NOT_FOUND);
    ck_assert(!db_fixture_file_exists(db_fixture_path));
    ck_assert_uint_eq(info.n_campaigns, 0);
    /* An SQLite file of no schema: not umpire's, and left alone. */
    db_fixture_raw_exec("CREATE TABLE notes (body TEXT)");
    err_clear(&e);
    ck_assert_int_eq(db_copy(db_fixture_path, UNREACHABLE, &info, &e),
                     ERR_INVALID);
    ck_assert_ptr_nonnull(strstr(e.message, "not an umpire database"));
    ck_assert_int_eq(db_fixture_raw_query_int("SELECT count(*) FROM "
                                              "sqlite_schema"),
                     1);
    /* Newer than this build. */
    db_fixture_raw_exec("PRAGMA user_version = 9999");
    err_clear(&e);
    ck_assert_int_eq(db_copy(db_fixture_path, UNREACHABLE, &info, &e),
                     ERR_INVALID);
    ck_assert_ptr_nonnull(strstr(e.message, "newer"));
    /* Not a database at all. */
    unlink(db_fixture_path);
    f = fopen(db_fixture_path, "w");
    ck_assert_ptr_nonnull(f);
    fputs("not a database, but long enough to be read as a header of one "
          "if it were\n",
          f);
    fclose(f);
    err_clear(&e);
    ck_assert_int_eq(db_copy(db_fixture_path, UNREACHABLE, &info, &e),
                     ERR_INVALID);
    unlink(db_fixture_path);
}
END_TEST

START_TEST(test_refused_destination)
{
    db_copy_info info;
    err_info e;

    make_v1();
    err_clear(&e);
    ck_assert_int_eq(db_copy(db_fixture_path, "/tmp/other.db", &info, &e),
                     ERR_INVALID);
    ck_assert_ptr_nonnull(strstr(e.message, "PostgreSQL"));
    err_clear(&e);
    ck_assert_int_eq(db_copy(db_fixture_path, UNREACHABLE, &info, &e),
                     ERR_UNAVAILABLE);
    ck_assert_uint_eq(info.n_campaigns, 0);
    ck_assert_int_eq(info.n_tables, 0);
    /* The source was not migrated. */
    ck_assert_int_eq(db_fixture_raw_query_int("PRAGMA user_version"), 1);
    /* A PostgreSQL store is no source. */
    err_clear(&e);
    ck_assert_int_eq(db_copy(UNREACHABLE, UNREACHABLE, &info, &e), ERR_INVALID);
}
END_TEST

Suite *suite_copy(void)
{
    Suite *s = suite_create("copy");
    TCase *tc = tcase_create("copy");

    tcase_add_unchecked_fixture(tc, db_fixture_suite_make,
                                db_fixture_suite_remove);
    tcase_add_checked_fixture(tc, db_fixture_setup, db_fixture_teardown);
    tcase_add_test(tc, test_schema_version_at);
    tcase_add_test(tc, test_refused_source);
    tcase_add_test(tc, test_refused_destination);
    suite_add_tcase(s, tc);
    return s;
}
