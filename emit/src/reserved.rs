//! Identifiers a generated C name must not take, with the reason quoted in the header's
//! list of renamed identifiers.
//!
//! Local variables may legally shadow library functions in C, but they then break any call
//! to that function in the same scope, and macros cannot be shadowed at all; the header is
//! also read by C++ callers. Renaming every listed name keeps the rule simple to predict.

/// Names grouped by why they are taken. Math functions get their `f`/`l` variants added
/// when the table is built.
const GROUPS: &[(&str, &str)] = &[
    (
        "is a C keyword",
        "auto break case char const continue default do double else enum extern float for goto if \
         inline int long register restrict return short signed sizeof static struct switch typedef \
         union unsigned void volatile while alignas alignof constexpr nullptr static_assert \
         thread_local typeof typeof_unqual asm fortran",
    ),
    (
        "is a C++ keyword",
        "and and_eq bitand bitor catch char8_t char16_t char32_t class compl concept const_cast \
         consteval constinit co_await co_return co_yield decltype delete dynamic_cast explicit \
         export friend mutable namespace new noexcept not not_eq operator or or_eq private \
         protected public reinterpret_cast requires static_cast template this throw try typeid \
         typename using virtual wchar_t xor xor_eq",
    ),
    ("collides with stdbool.h", "bool true false __bool_true_false_are_defined"),
    (
        "collides with stdint.h",
        "int8_t int16_t int32_t int64_t uint8_t uint16_t uint32_t uint64_t int_least8_t \
         int_least16_t int_least32_t int_least64_t uint_least8_t uint_least16_t uint_least32_t \
         uint_least64_t int_fast8_t int_fast16_t int_fast32_t int_fast64_t uint_fast8_t \
         uint_fast16_t uint_fast32_t uint_fast64_t intptr_t uintptr_t intmax_t uintmax_t \
         INT8_MIN INT16_MIN INT32_MIN INT64_MIN INT8_MAX INT16_MAX INT32_MAX INT64_MAX UINT8_MAX \
         UINT16_MAX UINT32_MAX UINT64_MAX INTPTR_MIN INTPTR_MAX UINTPTR_MAX INTMAX_MIN INTMAX_MAX \
         UINTMAX_MAX PTRDIFF_MIN PTRDIFF_MAX SIZE_MAX SIG_ATOMIC_MIN SIG_ATOMIC_MAX WCHAR_MIN \
         WCHAR_MAX WINT_MIN WINT_MAX INT8_C INT16_C INT32_C INT64_C UINT8_C UINT16_C UINT32_C \
         UINT64_C INTMAX_C UINTMAX_C",
    ),
    ("collides with stddef.h", "size_t ptrdiff_t wchar_t max_align_t offsetof NULL"),
    ("collides with complex.h", "I complex imaginary _Complex_I _Imaginary_I CMPLX CMPLXF CMPLXL"),
    ("collides with errno.h", "errno EDOM ERANGE EILSEQ"),
    ("collides with assert.h", "assert"),
    (
        "collides with stdio.h",
        "EOF FILE fpos_t stdin stdout stderr printf fprintf sprintf snprintf scanf fscanf sscanf \
         puts fputs gets fgets putchar getchar fputc fgetc putc getc fopen fclose fread fwrite \
         fflush fseek ftell rewind remove rename perror BUFSIZ",
    ),
    (
        "collides with stdlib.h",
        "malloc calloc realloc free aligned_alloc abort exit atexit quick_exit at_quick_exit _Exit \
         getenv system qsort bsearch abs labs llabs div ldiv lldiv div_t ldiv_t lldiv_t atoi atol \
         atoll atof strtod strtof strtold strtol strtoll strtoul strtoull rand srand mblen mbtowc \
         wctomb mbstowcs wcstombs EXIT_SUCCESS EXIT_FAILURE RAND_MAX MB_CUR_MAX",
    ),
    (
        "collides with string.h",
        "memcpy memmove memset memcmp memchr strcpy strncpy strcat strncat strcmp strncmp strcoll \
         strxfrm strchr strrchr strspn strcspn strpbrk strstr strtok strerror strlen strdup",
    ),
    (
        "collides with math.h",
        "INFINITY NAN HUGE_VAL HUGE_VALF HUGE_VALL FP_NAN FP_INFINITE FP_ZERO FP_SUBNORMAL FP_NORMAL \
         FP_FAST_FMA FP_FAST_FMAF FP_FAST_FMAL FP_ILOGB0 FP_ILOGBNAN MATH_ERRNO MATH_ERREXCEPT \
         math_errhandling float_t double_t fpclassify isfinite isinf isnan isnormal signbit \
         isgreater isgreaterequal isless islessequal islessgreater isunordered M_E M_LOG2E \
         M_LOG10E M_LN2 M_LN10 M_PI M_PI_2 M_PI_4 M_1_PI M_2_PI M_2_SQRTPI M_SQRT2 M_SQRT1_2 \
         DOMAIN SING OVERFLOW UNDERFLOW TLOSS PLOSS",
    ),
    ("collides with OpenMP", "omp_lock_t omp_nest_lock_t omp_sched_t"),
    ("is a predefined macro", "unix linux i386 i686"),
    ("is the C program entry point", "main"),
];

/// libm functions (C99 and POSIX/GNU extensions such as the Bessel functions `j0`, `y1`):
/// each also reserves its `f` and `l` variants.
const MATH_FUNCTIONS: &str = "acos asin atan atan2 cos sin tan acosh asinh atanh cosh sinh tanh exp exp2 expm1 \
     exp10 pow10 frexp ldexp log log10 log1p log2 logb ilogb modf scalbn scalbln scalb cbrt fabs \
     hypot pow sqrt erf erfc lgamma tgamma gamma lgamma_r gamma_r ceil floor nearbyint rint lrint \
     llrint round lround llround trunc fmod remainder remquo drem copysign nan nextafter nexttoward \
     fdim fmax fmin fma j0 j1 jn y0 y1 yn finite significand sincos";

use std::collections::BTreeMap;
use std::sync::OnceLock;

/// Why `name` cannot be used as a C identifier as is, or `None` when it can.
pub fn reason(name: &str) -> Option<String> {
    if name.is_empty() {
        return Some("is empty".into());
    }
    let valid =
        name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') && !name.starts_with(|c: char| c.is_ascii_digit());
    if !valid {
        return Some("is not a C identifier".into());
    }
    if name.to_ascii_lowercase().starts_with("adjc_") {
        return Some("is reserved for the adjc runtime".into());
    }
    if name.starts_with("omp_") {
        return Some("collides with OpenMP".into());
    }
    if name.starts_with("__") || (name.starts_with('_') && name[1..].starts_with(|c: char| c.is_ascii_uppercase())) {
        return Some("is reserved by the C standard".into());
    }
    table().get(name).map(|why| (*why).to_string())
}

/// Every listed name with its reason, built once.
fn table() -> &'static BTreeMap<String, &'static str> {
    static TABLE: OnceLock<BTreeMap<String, &'static str>> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut t = BTreeMap::new();
        for (why, names) in GROUPS {
            for n in names.split_whitespace() {
                t.entry(n.to_string()).or_insert(*why);
            }
        }
        for f in MATH_FUNCTIONS.split_whitespace() {
            for n in [f.to_string(), format!("{f}f"), format!("{f}l")] {
                t.entry(n).or_insert("collides with math.h");
            }
        }
        t
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn knows_keywords_macros_and_libm() {
        assert_eq!(reason("int").as_deref(), Some("is a C keyword"));
        assert_eq!(reason("I").as_deref(), Some("collides with complex.h"));
        assert_eq!(reason("y1").as_deref(), Some("collides with math.h"));
        assert_eq!(reason("expf").as_deref(), Some("collides with math.h"));
        assert_eq!(reason("gamma").as_deref(), Some("collides with math.h"));
        assert_eq!(reason("NULL").as_deref(), Some("collides with stddef.h"));
        assert_eq!(reason("new").as_deref(), Some("is a C++ keyword"));
        assert_eq!(reason("adjc_tmp").as_deref(), Some("is reserved for the adjc runtime"));
        assert_eq!(reason("_Tmp").as_deref(), Some("is reserved by the C standard"));
        assert_eq!(reason("x-y").as_deref(), Some("is not a C identifier"));
        assert_eq!(reason("2x").as_deref(), Some("is not a C identifier"));
        for ok in ["A", "x", "alpha", "y2", "expo", "A_b", "TSTEPS", "i", "_tmp", "ret"] {
            assert_eq!(reason(ok), None, "{ok}");
        }
    }
}
