#define _POSIX_C_SOURCE 200809L
/* The pre-flight index's pure parts: the byte format (a truncated or
 * unterminated record reads as bad, never as data) and the "racy" rule
 * (a directory changed in the clock tick of its stat cannot vouch for
 * itself). End to end: tests/linux/test_scan_index.sh. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "scanindex.h"

static void roundtrip(void **state)
{
    struct sbx_bytes b = {NULL, 0, 0, 0};
    struct sbx_cursor c;
    (void)state;
    sbx_bytes_u64(&b, 42);
    sbx_bytes_str(&b, "/home/me/proj");
    sbx_bytes_str(&b, NULL);
    sbx_bytes_u64(&b, UINT64_MAX);
    assert_false(b.oom);
    c.p = b.data;
    c.end = b.data + b.len;
    c.bad = 0;
    assert_int_equal(sbx_cursor_u64(&c), 42);
    assert_string_equal(sbx_cursor_str(&c), "/home/me/proj");
    assert_string_equal(sbx_cursor_str(&c), "");
    assert_true(sbx_cursor_u64(&c) == UINT64_MAX);
    assert_false(c.bad);
    assert_true(c.p == c.end);
    /* Reading past the end is bad, and stays bad. */
    assert_int_equal(sbx_cursor_u64(&c), 0);
    assert_true(c.bad);
    assert_string_equal(sbx_cursor_str(&c), "");
    sbx_bytes_free(&b);
}

static void truncated_and_unterminated(void **state)
{
    struct sbx_bytes b = {NULL, 0, 0, 0};
    struct sbx_cursor c;
    size_t cut;
    (void)state;
    sbx_bytes_str(&b, "abcdef");
    /* Every shorter prefix is bad. */
    for (cut = 0; cut < b.len; cut++) {
        c.p = b.data;
        c.end = b.data + cut;
        c.bad = 0;
        (void)sbx_cursor_str(&c);
        assert_true(c.bad);
    }
    /* A string whose terminator was overwritten, or with a NUL inside. */
    b.data[b.len - 1] = 'X';
    c.p = b.data;
    c.end = b.data + b.len;
    c.bad = 0;
    (void)sbx_cursor_str(&c);
    assert_true(c.bad);
    b.data[b.len - 1] = '\0';
    b.data[8 + 2] = '\0';
    c.p = b.data;
    c.bad = 0;
    (void)sbx_cursor_str(&c);
    assert_true(c.bad);
    sbx_bytes_free(&b);
}

static struct stat with_ctime(long long sec, long nsec)
{
    struct stat st;
    memset(&st, 0, sizeof st);
    st.st_ctim.tv_sec = (time_t)sec;
    st.st_ctim.tv_nsec = nsec;
    return st;
}

static void racy_rule(void **state)
{
    struct timespec before = {1000, 500000000};
    struct stat st;
    (void)state;
#ifdef __linux__
    st = with_ctime(999, 100);
    assert_false(sbx_index_racy(&st, &before)); /* older than the tick: a change shows */
    st = with_ctime(1000, 499999999);
    assert_false(sbx_index_racy(&st, &before));
    st = with_ctime(1000, 500000000);
    assert_true(sbx_index_racy(&st, &before)); /* this very tick */
    st = with_ctime(1001, 1);
    assert_true(sbx_index_racy(&st, &before)); /* ahead of the clock */
    /* Whole seconds only (or two, as FAT keeps them): a change later in
     * the same unit stores the same stamp, so the last two seconds before
     * the clock are racy. */
    st = with_ctime(1000, 0);
    assert_true(sbx_index_racy(&st, &before));
    st = with_ctime(999, 0);
    assert_true(sbx_index_racy(&st, &before));
    st = with_ctime(998, 0);
    assert_false(sbx_index_racy(&st, &before));
    /* No clock: nothing can vouch. */
    before.tv_sec = 0;
    before.tv_nsec = 0;
    st = with_ctime(1, 1);
    assert_true(sbx_index_racy(&st, &before));
#else
    st = with_ctime(1, 1);
    assert_true(sbx_index_racy(&st, &before)); /* no index here: never trusted */
#endif
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(roundtrip),
        cmocka_unit_test(truncated_and_unterminated),
        cmocka_unit_test(racy_rule),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
