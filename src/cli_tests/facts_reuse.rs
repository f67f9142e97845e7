//! Header functions' facts read once per batch (`lower/reuse.rs`): a unit
//! compiled after another that included the same header reuses the facts of
//! its functions only where they would read the same, so every unit's
//! decisions are those it makes alone. What precedes the header can change
//! a function its ODR hash does not see change: an enumerator's value (a
//! branch -O0 folds away), the overload a call resolves to.

use crate::support::clasp_in;

/// `clasp migrate -j1 --explain` over `units` (name, text) with `common.h`
/// and `config` as `clasp.toml`; stderr.
fn explained(header: &str, units: &[(&str, &str)], config: &str) -> String {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("common.h"), header).unwrap();
    std::fs::write(dir.path().join("clasp.toml"), config).unwrap();
    let mut args = vec!["migrate", "-j1", "--explain", "--no-cache", "--root", "."];
    for (name, text) in units {
        std::fs::write(dir.path().join(name), text).unwrap();
        args.push(name);
    }
    let (code, _, stderr) = clasp_in(dir.path(), &args);
    assert!(code == 0 || code == 1, "{stderr}");
    stderr
}

const BUMP: &str = "\
void bump(__global int *p)
{
  if (MODE)
    p[0] += 1;
  else
    atomic_inc(p);
}
";

fn unit(prelude: &str) -> String {
    format!("{prelude}\n#include \"common.h\"\n__kernel void k(__global int *g) {{ bump(g); }}\n")
}

#[test]
fn a_function_reading_an_enumerator_set_before_its_header_is_read_in_each_unit() {
    let (first, second) = (unit("enum { MODE = 1 };"), unit("enum { MODE = 0 };"));
    let stderr = explained(BUMP, &[("a.cl", &first), ("b.cl", &second)], "");
    // b.cl's -O0 build passes `p` to atomic_inc: the pin holds the header's parameter named.
    assert!(stderr.contains("builtin-pin"), "{stderr}");
    assert!(!stderr.contains("verify-failed"), "{stderr}");
}

#[test]
fn a_call_resolving_to_another_overload_is_read_in_each_unit() {
    let header = "float h(__global float *p) { return g(p); }\n";
    let plain = "float g(__global float *p) { return p[0]; }\n#include \"common.h\"\n\
                 __kernel void k(__global float *o) { o[0] = h(o); }\n";
    let overloaded = "__attribute__((overloadable)) float g(__global float *p) { return p[0]; }\n\
                      __attribute__((overloadable)) float g(__local float *p) { return p[0]; }\n\
                      #include \"common.h\"\n__kernel void k(__global float *o) { o[0] = h(o); }\n";
    let together = explained(header, &[("a.cl", plain), ("b.cl", overloaded)], "");
    // b.cl's `g` for __global receives the header's pointer.
    assert!(together.contains("b.cl:1:55: generic-param: `p` of `g` receives __global (common.h:1)"), "{together}");
}

#[test]
fn units_including_a_header_alike_read_what_each_reads_alone() {
    let header = "float sum_g(__global const float *p) { return p[0] + p[1]; }\n\
                  float sum_l(__local const float *p) { return p[0] + p[1]; }\n\
                  float halved(float x) { return x * 0.5f; }\n\
                  void keep(__global int *p) { atomic_inc(p); }\n";
    let kernel = |name: &str| {
        format!(
            "#include \"common.h\"\n__kernel void {name}(__global float *g, __local float *l, __global int *c)\n\
             {{ l[0] = g[0]; g[1] = halved(sum_g(g) + sum_l(l)); keep(c); }}\n"
        )
    };
    let (a, b) = (kernel("ka"), kernel("kb"));
    let together = explained(header, &[("a.cl", &a), ("b.cl", &b)], "");
    // An option no code reads: b.cl's compiles have other arguments, so nothing of a.cl's is reused.
    let apart = explained(header, &[("a.cl", &a), ("b.cl", &b)], "[[file]]\npath = \"b.cl\"\noptions = [\"-DUNREAD=1\"]\n");
    assert!(together.contains("merge-duplicates") && together.contains("builtin-pin"), "{together}");
    assert_eq!(together, apart);
}
