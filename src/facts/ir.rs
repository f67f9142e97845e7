//! `IrFacts`: what clang made of one translation unit, as owned plain data.
//!
//! Produced by `lower` from LLVM IR (spir64, -O0, -g) and consumed by
//! `infer` and `analyze`. Flows are *local* edges: a pointer value that
//! originates at `from` reaches `to` at a source location. Transitive
//! questions ("where does this ultimately come from?") are answered by
//! walking these edges.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::facts::syntax::Space;

/// A pointer declaration as the IR sees it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Node {
    /// Parameter `index` (0-based) of function `func` (IR symbol name).
    Param { func: String, index: u32 },
    /// Local variable `name` declared at `line` of `func`.
    Local { func: String, name: String, line: u32 },
    /// The value `func` returns.
    Return { func: String },
}

impl Node {
    pub fn func(&self) -> &str {
        match self {
            Node::Param { func, .. } | Node::Local { func, .. } | Node::Return { func } => func,
        }
    }
}

/// Where a pointer value comes from, one step back.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Source {
    Decl {
        node: Node,
    },
    /// A program-scope variable, or a kernel-scope `__local` variable (`k.tmp`).
    Global {
        name: String,
    },
    /// The address of a private object (a local array or scalar) of `func`.
    PrivateObject {
        func: String,
        name: String,
    },
    /// A pointer loaded from memory (a struct field, an array of pointers).
    Memory,
    Null,
    /// Anything else (integer casts, undefined callees): `what` says which.
    Unknown {
        what: String,
    },
}

/// Where a pointer value goes.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Sink {
    Decl {
        node: Node,
    },
    /// Argument `arg` of a builtin (declared, not defined here); `name` is the
    /// unmangled name, `mangled` the symbol.
    Builtin {
        name: String,
        mangled: String,
        arg: u32,
    },
    /// Argument `arg` of a function declared but not defined in this unit.
    External {
        name: String,
        arg: u32,
    },
    /// Stored into memory that is not a declared variable.
    Memory,
    /// Converted to an integer (`ptrtoint`).
    Integer,
}

/// A file position from debug info.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct SrcLoc {
    pub file: String,
    pub line: u32,
    pub col: u32,
}

/// One edge: a pointer of address space `space` flows from `from` to `to`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Flow {
    pub from: Source,
    pub to: Sink,
    pub space: Space,
    /// The function the flow happens in.
    pub func: String,
    pub at: SrcLoc,
}

/// A function of the module.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct IrFunction {
    pub name: String,
    pub is_kernel: bool,
    pub is_definition: bool,
    /// Address space of each pointer parameter (`None` for non-pointers).
    pub params: Vec<Option<Space>>,
    pub returns: Option<Space>,
    /// Pointer-typed local variables: (name, line, pointee space).
    pub locals: Vec<(String, u32, Space)>,
    /// Functions defined in the unit that it calls directly.
    pub calls: Vec<String>,
}

/// A program-scope (or kernel-scope `__local`) variable.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct IrGlobal {
    pub name: String,
    pub space: Space,
    pub size_bytes: u64,
    /// Some function stores into it directly (not through a pointer declaration).
    pub written: bool,
}

/// Everything `lower` learns about one translation unit. A function's facts
/// and flows are shared values: units compiled against one preamble share
/// those of its headers' functions (`lower::facts`).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct IrFacts {
    pub functions: Vec<Arc<IrFunction>>,
    pub globals: Vec<IrGlobal>,
    pub flows: Vec<Arc<Flow>>,
    /// Where the unit, compiled unchanged as the target, stores a generic
    /// pointer into memory: the destination (a field, a variable) is declared
    /// generic in the target's build (`#if __OPENCL_C_VERSION__ >= 200`),
    /// whatever the input standard's build declares. Empty when the unit is
    /// read as the target already, stores no declaration's pointer, or does
    /// not compile unchanged as the target (`unit`).
    #[serde(default, skip_serializing_if = "std::collections::BTreeSet::is_empty")]
    pub generic_stores_in_target: std::collections::BTreeSet<SrcLoc>,
}

impl IrFacts {
    /// The places where a declaration's pointer is stored into memory.
    pub fn stores_of_declarations(&self) -> impl Iterator<Item = &SrcLoc> {
        self.flows.iter().filter(|f| f.to == Sink::Memory && matches!(f.from, Source::Decl { .. })).map(|f| &f.at)
    }

    pub fn function(&self, name: &str) -> Option<&IrFunction> {
        self.functions.iter().find(|f| f.name == name).map(|f| &**f)
    }

    /// The kernels that run any of `functions` (IR names): themselves, or through calls.
    pub fn kernels_reaching(&self, functions: &std::collections::BTreeSet<String>) -> std::collections::BTreeSet<String> {
        let mut reaching = functions.clone();
        loop {
            let before = reaching.len();
            for f in &self.functions {
                if !reaching.contains(&f.name) && f.calls.iter().any(|c| reaching.contains(c)) {
                    reaching.insert(f.name.clone());
                }
            }
            if reaching.len() == before {
                break;
            }
        }
        self.functions.iter().filter(|f| f.is_kernel && reaching.contains(&f.name)).map(|f| f.name.clone()).collect()
    }
}

/// The unmangled name of an Itanium-mangled symbol (`_Z10atomic_addPU3AS1Vii`
/// is `atomic_add`); plain C names are returned as they are.
pub fn demangled_base(symbol: &str) -> &str {
    let Some(rest) = symbol.strip_prefix("_Z") else { return symbol };
    let digits = rest.bytes().take_while(|b| b.is_ascii_digit()).count();
    let Ok(len) = rest[..digits].parse::<usize>() else { return symbol };
    rest.get(digits..digits + len).unwrap_or(symbol)
}

/// Address space numbers of the spir/spir64 target.
pub fn spir_space(number: u32) -> Option<Space> {
    match number {
        0 => Some(Space::Private),
        1 => Some(Space::Global),
        2 => Some(Space::Constant),
        3 => Some(Space::Local),
        4 => Some(Space::Generic),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn demangles_builtin_names() {
        assert_eq!(demangled_base("_Z10atomic_addPU3AS1Vii"), "atomic_add");
        assert_eq!(demangled_base("_Z21async_work_group_copyPU3AS3fPU3AS1Kfm9ocl_event"), "async_work_group_copy");
        assert_eq!(demangled_base("get_fence"), "get_fence");
        assert_eq!(demangled_base("_Zbroken"), "_Zbroken");
    }
}
