//! The equivalence compiles leave out the code generation of helpers no
//! change touches (`migrate::settle::left_out`), on the reasoning that the
//! text around them is the same on both sides; clang's ODR hash of each
//! one left out must agree between the two compiles, or both are compiled
//! whole, as it does when every top-level declaration that is not a
//! function definition does not hash alike. A helper reading `__LINE__`
//! below a merged duplicate, directly or through an enumerator or a type,
//! reads differently once the duplicate's lines are deleted: the merge
//! must be withdrawn, as it is with every helper compiled.

use crate::support::clasp_in;

const HEADER: &str = "\
float total_g(__global const float *p, int n)
{
  float s = 0.0f;
  for (int i = 0; i < n; i++)
    s += p[i];
  return s;
}

float total_l(__local const float *p, int n)
{
  float s = 0.0f;
  for (int i = 0; i < n; i++)
    s += p[i];
  return s;
}

PRELUDE
int LINE_HELPER(void)
{
  return LINE_VALUE;
}

float untouched(float x)
{
  return x * 0.5f;
}
";

const KERNEL: &str = "\
#include \"lib.h\"

__kernel void run(__global const float *in, __local float *tmp, __global float *out)
{
  tmp[0] = in[0];
  out[0] = untouched(total_g(in, 4) + total_l(tmp, 1)) + (float)LINE_HELPER();
}
";

/// `clasp migrate --explain` on the pair, with the helper returning
/// `value`, declared after `prelude`; stderr.
fn explained(prelude: &str, value: &str) -> String {
    let dir = tempfile::tempdir().unwrap();
    let header = HEADER.replace("LINE_HELPER", "where_am_i").replace("LINE_VALUE", value).replace("PRELUDE", prelude);
    std::fs::write(dir.path().join("lib.h"), header).unwrap();
    std::fs::write(dir.path().join("k.cl"), KERNEL.replace("LINE_HELPER", "where_am_i")).unwrap();
    let (code, _, stderr) = clasp_in(dir.path(), &["migrate", "--explain", "--no-cache", "--root", ".", "k.cl"]);
    assert!(code == 0 || code == 1, "{stderr}");
    stderr
}

#[test]
fn a_helper_reading_differently_after_a_deletion_withdraws_the_merge() {
    // The helper's own body changes (its ODR hash), or only what it reads does (the context's hash).
    for (prelude, value) in
        [("", "__LINE__"), ("enum { HERE = __LINE__ };", "HERE"), ("typedef char row[__LINE__];", "sizeof(row)")]
    {
        let stderr = explained(prelude, value);
        assert!(stderr.contains("not merged not-equivalent: `total_g`, `total_l`"), "{prelude} {value}: {stderr}");
        assert!(stderr.contains("1 not merged"), "{stderr}");
    }
}

#[test]
fn helpers_left_out_alike_keep_the_merge() {
    let stderr = explained("enum { HERE = 7 };", "HERE");
    assert!(stderr.contains("1 duplicate group would merge"), "{stderr}");
    assert!(!stderr.contains("not-equivalent"), "{stderr}");
}
