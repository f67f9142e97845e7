//! The lint `residual-generic` read back from a `clasp migrate --format
//! json` report, for `clasp run-check`: a kernel it finds slower is linked
//! to what its migrated code still accesses through generic pointers.

use std::collections::BTreeMap;

/// What the report says of one kernel's residual generic accesses.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct ResidualKernel {
    /// Accesses through generic pointers in the migrated kernel.
    pub accesses: usize,
    /// Those in the original compiled as the target.
    pub original: usize,
    /// By kind and cause (`2 loads in out-of-line `sum``).
    pub detail: String,
    /// `file:line:col` of the kernel's definition.
    pub at: String,
}

/// Kernel name -> its entry of the report's `residual_generic` list (empty
/// when the list is absent: no kernel has any). A kernel name several
/// units define (configurations, programs) keeps the entry with the most
/// accesses, the first of those in the report's order (units, then kernels).
/// In process, the same from `serde_json::to_value(&migration)`.
pub fn residual_generic_by_kernel(report: &serde_json::Value) -> BTreeMap<String, ResidualKernel> {
    let mut out: BTreeMap<String, ResidualKernel> = BTreeMap::new();
    for entry in report["residual_generic"].as_array().map(Vec::as_slice).unwrap_or_default() {
        let (Some(kernel), Some(accesses)) = (entry["kernel"].as_str(), entry["accesses"].as_u64()) else { continue };
        let count = |field: &str| entry[field].as_u64().and_then(|n| usize::try_from(n).ok()).unwrap_or(0);
        let found = ResidualKernel {
            accesses: usize::try_from(accesses).unwrap_or(usize::MAX),
            original: count("original"),
            detail: entry["detail"].as_str().unwrap_or_default().to_string(),
            at: format!("{}:{}:{}", entry["path"].as_str().unwrap_or_default(), count("line"), count("col")),
        };
        if out.get(kernel).is_none_or(|known| found.accesses > known.accesses) {
            out.insert(kernel.to_string(), found);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_kernel_several_units_define_keeps_its_most_accesses_and_an_absent_list_is_empty() {
        let report = serde_json::json!({ "residual_generic": [
            { "unit": "a.cl", "path": "a.cl", "line": 3, "col": 15, "kernel": "k", "accesses": 2, "original": 0, "detail": "2 loads in out-of-line `f`" },
            { "unit": "a.cl [wide]", "path": "a.cl", "line": 3, "col": 15, "kernel": "k", "accesses": 5, "original": 1, "detail": "5 loads in out-of-line `f`" },
            { "unit": "a.cl [narrow]", "path": "a.cl", "line": 3, "col": 15, "kernel": "k", "accesses": 5, "original": 0, "detail": "later, not kept" },
            { "unit": "b.cl", "path": "b.cl", "line": 9, "col": 1, "kernel": "m", "accesses": 1, "original": 0, "detail": "1 store through a pointer chosen by a select" },
        ]});
        let found = residual_generic_by_kernel(&report);
        assert_eq!(found.keys().collect::<Vec<_>>(), ["k", "m"]);
        assert_eq!((found["k"].accesses, found["k"].original, found["k"].detail.as_str()), (5, 1, "5 loads in out-of-line `f`"));
        assert_eq!(found["m"].at, "b.cl:9:1");
        assert!(residual_generic_by_kernel(&serde_json::json!({ "changes": [] })).is_empty());
    }
}
