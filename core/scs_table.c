/*
 * scs_table.c: the arithmetic and the table of SCS combat (docs/rules/
 * scs.md, steps 1 to 3 and 5): exact fractions, odds by the standard
 * rounding rule, and combat results tables: their results, rows and
 * columns.  The combat itself is in scs.c.
 */
#include "scs.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

/* ---- exact fractions ---- */

static int64_t gcd64(int64_t a, int64_t b)
{
    if (a < 0)
        a = -a;
    while (b != 0) {
        int64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* num/den (den > 0) in lowest terms. */
static scs_frac reduced(int64_t num, int64_t den)
{
    int64_t g = gcd64(num, den);
    scs_frac f = {0, 1};

    if (g != 0) {
        f.num = num / g;
        f.den = den / g;
    }
    return f;
}

scs_frac scs_frac_int(int64_t n)
{
    scs_frac f = {n, 1};
    return f;
}

bool scs_frac_mul(scs_frac a, scs_frac b, scs_frac *out)
{
    int64_t g1 = gcd64(a.num, b.den), g2 = gcd64(b.num, a.den);
    int64_t num, den;

    if (g1 == 0)
        g1 = 1;
    if (g2 == 0)
        g2 = 1;
    if (__builtin_mul_overflow(a.num / g1, b.num / g2, &num) ||
        __builtin_mul_overflow(a.den / g2, b.den / g1, &den))
        return false;
    *out = reduced(num, den);
    return true;
}

bool scs_frac_add(scs_frac a, scs_frac b, scs_frac *out)
{
    int64_t g = gcd64(a.den, b.den);
    int64_t den, x, y, num;

    if (__builtin_mul_overflow(a.den / g, b.den, &den) ||
        __builtin_mul_overflow(a.num, b.den / g, &x) ||
        __builtin_mul_overflow(b.num, a.den / g, &y) ||
        __builtin_add_overflow(x, y, &num))
        return false;
    *out = reduced(num, den);
    return true;
}

int scs_frac_cmp(scs_frac a, scs_frac b)
{
    __int128 x = (__int128)a.num * b.den, y = (__int128)b.num * a.den;

    return x < y ? -1 : x > y;
}

/* Reads the digits at *s (at most max_digits) into *v; false if none. */
static bool read_digits(const char **s, int max_digits, int64_t *v,
                        int *n_digits)
{
    int n = 0;

    *v = 0;
    while (**s >= '0' && **s <= '9') {
        if (++n > max_digits)
            return false;
        *v = *v * 10 + (**s - '0');
        (*s)++;
    }
    if (n_digits)
        *n_digits = n;
    return n > 0;
}

bool scs_frac_parse(const char *s, scs_frac *out)
{
    int64_t whole, part, den = 1;
    int n_digits, i;

    if (s == NULL || !read_digits(&s, 9, &whole, NULL))
        return false;
    if (*s == '/') {
        s++;
        if (!read_digits(&s, 9, &den, NULL) || den == 0 || *s != '\0')
            return false;
        *out = reduced(whole, den);
    } else if (*s == '.') {
        s++;
        if (!read_digits(&s, 6, &part, &n_digits) || *s != '\0')
            return false;
        for (i = 0; i < n_digits; i++)
            den *= 10;
        *out = reduced(whole * den + part, den);
    } else if (*s == '\0') {
        *out = scs_frac_int(whole);
    } else {
        return false;
    }
    return out->num > 0;
}

void scs_frac_text(scs_frac f, char buf[SCS_FRAC_TEXT])
{
    if (f.den == 1)
        snprintf(buf, SCS_FRAC_TEXT, "%lld", (long long)f.num);
    else
        snprintf(buf, SCS_FRAC_TEXT, "%lld/%lld", (long long)f.num,
                 (long long)f.den);
}

void scs_frac_decimal(scs_frac f, char buf[SCS_FRAC_TEXT])
{
    bool is_negative = f.num < 0;
    __int128 n = is_negative ? -(__int128)f.num : f.num;
    /* thousandths, rounded half up */
    __int128 t = (n * 2000 + f.den) / (2 * (__int128)f.den);
    long long whole = (long long)(t / 1000);
    int frac = (int)(t % 1000), len;

    len = snprintf(buf, SCS_FRAC_TEXT, "%s%lld", is_negative ? "-" : "", whole);
    if (frac != 0) {
        char digits[8];
        int k = 3;
        snprintf(digits, sizeof digits, "%03d", frac);
        while (digits[k - 1] == '0')
            k--;
        snprintf(buf + len, (size_t)(SCS_FRAC_TEXT - len), ".%.*s", k, digits);
    }
}

int64_t scs_frac_round(scs_frac f)
{
    /* floor(f + 1/2) = floor((2 num + den) / (2 den)), f >= 0 */
    return (int64_t)((2 * (__int128)f.num + f.den) / (2 * (__int128)f.den));
}

/* ---- odds ---- */

bool scs_odds_of(scs_frac attack, scs_frac defense, scs_odds *out)
{
    bool is_attack_larger = scs_frac_cmp(attack, defense) >= 0;
    scs_frac big = is_attack_larger ? attack : defense;
    scs_frac small = is_attack_larger ? defense : attack;
    scs_frac q;
    int64_t n;

    if (defense.num == 0) {
        out->attack = 1;
        out->defense = 0;
        return true;
    }
    /* Both divided by the smaller: the larger over the smaller, rounded;
     * the smaller over itself is 1. */
    if (!scs_frac_mul(big, (scs_frac){small.den, small.num}, &q))
        return false;
    n = scs_frac_round(q);
    if (n > INT_MAX)
        return false;
    out->attack = is_attack_larger ? (int)n : 1;
    out->defense = is_attack_larger ? 1 : (int)n;
    return true;
}

void scs_odds_text(scs_odds o, char buf[24])
{
    snprintf(buf, 24, "%d:%d", o.attack, o.defense);
}

bool scs_odds_parse(const char *s, scs_odds *out)
{
    int64_t a, b;

    if (s == NULL || *s == '0' || !read_digits(&s, 3, &a, NULL) ||
        *s++ != ':' || *s == '0' || !read_digits(&s, 3, &b, NULL) || *s != '\0')
        return false;
    out->attack = (int)a;
    out->defense = (int)b;
    return true;
}

/* -1, 0, 1 as ratio a:b is below, at or above c:d. */
static int odds_cmp(scs_odds x, scs_odds y)
{
    long long l = (long long)x.attack * y.defense;
    long long r = (long long)y.attack * x.defense;

    return l < r ? -1 : l > r;
}

/* ---- the combat results table ---- */

const char *scs_roll_kind_name(scs_roll_kind k)
{
    return k == SCS_ROLL_D66 ? "d66" : "2d6";
}

bool scs_roll_kind_parse(const char *s, scs_roll_kind *out)
{
    if (strcmp(s, "2d6") == 0)
        *out = SCS_ROLL_2D6;
    else if (strcmp(s, "d66") == 0)
        *out = SCS_ROLL_D66;
    else
        return false;
    return true;
}

int scs_roll_rows(scs_roll_kind k)
{
    return k == SCS_ROLL_D66 ? 36 : 11;
}

void scs_roll_label(scs_roll_kind k, int row, char buf[4])
{
    int v = k == SCS_ROLL_D66 ? (row / 6 + 1) * 10 + row % 6 + 1 : row + 2;

    if (row < 0 || row >= scs_roll_rows(k)) {
        strcpy(buf, "?");
        return;
    }
    /* Two digits at most: 2-12 or 11-66. */
    buf[0] = v >= 10 ? (char)('0' + v / 10) : (char)('0' + v);
    buf[1] = v >= 10 ? (char)('0' + v % 10) : '\0';
    buf[2] = '\0';
}

int scs_roll_row(scs_roll_kind k, int value)
{
    int tens = value / 10, units = value % 10;

    if (k == SCS_ROLL_2D6)
        return value >= 2 && value <= 12 ? value - 2 : -1;
    if (tens < 1 || tens > 6 || units < 1 || units > 6)
        return -1;
    return (tens - 1) * 6 + units - 1;
}

/* One effect "A", "D2", "Dr2", "A1r1" at *s, up to a separator. */
static bool parse_effect(const char **s, scs_result *out, bool seen[2],
                         const char **why)
{
    scs_effect *eff;
    int64_t v;
    int side;

    if (**s != 'A' && **s != 'D') {
        *why = "an effect starts with A (attacker) or D (defender)";
        return false;
    }
    side = **s == 'A' ? SCS_ATTACKER : SCS_DEFENDER;
    if (seen[side]) {
        *why = "names the same side twice";
        return false;
    }
    seen[side] = true;
    eff = side == SCS_ATTACKER ? &out->attacker : &out->defender;
    (*s)++;
    if (**s >= '0' && **s <= '9') {
        if (!read_digits(s, 2, &v, NULL) || v > SCS_MAX_EFFECT) {
            *why = "steps are a number from 0 to 20";
            return false;
        }
        eff->steps = (int)v;
    }
    if (**s == 'r') {
        (*s)++;
        if (!read_digits(s, 2, &v, NULL) || v < 1 || v > SCS_MAX_EFFECT) {
            *why = "r is followed by the hexes to retreat, 1 to 20";
            return false;
        }
        eff->retreat = (int)v;
    }
    if (**s != '\0' && **s != ' ' && **s != '/') {
        *why = "an effect is A or D, then steps, then r and hexes, "
               "as in A1r1";
        return false;
    }
    return true;
}

bool scs_result_parse(const char *s, scs_result *out, const char **why)
{
    bool seen[2] = {false, false};
    const char *dummy;

    if (why == NULL)
        why = &dummy;
    memset(out, 0, sizeof *out);
    if (s == NULL || *s == '\0') {
        *why = "a result is \"-\" or effects such as \"A1r1\"";
        return false;
    }
    if (strlen(s) >= SCS_RESULT_TEXT) {
        *why = "a result is at most 23 characters";
        return false;
    }
    if (strcmp(s, "-") == 0)
        return true;
    for (;;) {
        if (!parse_effect(&s, out, seen, why))
            return false;
        if (*s == '\0')
            return true;
        s++; /* one space or "/" */
        if (*s == '\0' || *s == ' ' || *s == '/') {
            *why = "effects are separated by one space or \"/\"";
            return false;
        }
    }
}

bool scs_table_check_columns(const scs_table *t, int *bad_column,
                             const char **why)
{
    int i;

    *bad_column = 0;
    if (t->n_columns < 1 || t->n_columns > SCS_MAX_COLUMNS) {
        *why = "a table has 1 to 20 columns";
        return false;
    }
    for (i = 0; i < t->n_columns; i++) {
        *bad_column = i;
        if (t->columns[i].attack < 1 || t->columns[i].defense < 1) {
            *why = "is not odds such as \"1:2\" or \"3:1\"";
            return false;
        }
        if (i > 0 && odds_cmp(t->columns[i - 1], t->columns[i]) == 0) {
            *why = "repeats the column before it";
            return false;
        }
        if (i > 0 && odds_cmp(t->columns[i - 1], t->columns[i]) > 0) {
            *why = "is lower than the column before it: columns go from "
                   "the lowest odds to the highest";
            return false;
        }
        /* Rounded odds are always n:1 or 1:n: another column would never
         * be read. */
        if (t->columns[i].attack != 1 && t->columns[i].defense != 1) {
            *why = "can never be read: rounded odds are n:1 or 1:n";
            return false;
        }
    }
    return true;
}

int scs_table_column(const scs_table *t, scs_odds o)
{
    int i, col = -1;

    if (o.defense == 0) /* a defense of 0: the rightmost column */
        return t->n_columns - 1;
    for (i = 0; i < t->n_columns; i++)
        if (odds_cmp(t->columns[i], o) <= 0)
            col = i;
    return col;
}
