//! Pointer-flow tracing over one function's -O0 IR.
//!
//! At -O0 every named variable lives in an alloca and every use reloads it,
//! so a pointer value can be followed back, through loads, GEPs, casts and
//! selects, to the declaration slot, global or private object it came from.
//! Each use of a pointer (a call argument, a store into a variable, a
//! return, a builtin call, a store into memory, a cast to integer) becomes
//! one `Flow` edge per origin.

use std::collections::{BTreeSet, HashMap, HashSet};

use super::llvm::{FunctionView, Op, Val};
use crate::facts::ir::{demangled_base, spir_space, Flow, Node, Sink, Source, SrcLoc};

/// What an alloca is.
#[derive(Debug, Clone)]
enum Slot {
    Param(u32),
    Local(String, u32),
    /// A private object whose address may be taken (array, scalar, struct).
    Object(String),
    /// A compiler temporary holding a pointer: transparent.
    Temporary,
}

pub struct FunctionTrace<'a, 'm> {
    function: &'a FunctionView<'m>,
    slots: HashMap<Val<'m>, Slot>,
    /// Values stored into each temporary slot.
    temporaries: HashMap<Val<'m>, Vec<Val<'m>>>,
    /// The working directory, for file names as the user gave them.
    cwd: Option<std::path::PathBuf>,
    /// Functions the program defines outside this module (a shared
    /// preamble's, which a unit's compile only declares): a call to one is
    /// a call to a defined function.
    defined_elsewhere: &'a HashSet<String>,
}

impl<'a, 'm> FunctionTrace<'a, 'm> {
    pub fn new(function: &'a FunctionView<'m>, defined_elsewhere: &'a HashSet<String>) -> Self {
        let mut declared: HashMap<Val<'m>, (String, u32)> = HashMap::new();
        let mut slots = HashMap::new();
        let mut temporaries: HashMap<Val<'m>, Vec<Val<'m>>> = HashMap::new();
        for inst in &function.instructions {
            if inst.op() == Some(Op::Call) {
                if let Some((callee, _)) = inst.callee() {
                    if callee == "llvm.dbg.declare" {
                        if let Some((alloca, name, line)) = inst.declared_variable() {
                            declared.insert(alloca, (name, line));
                        }
                    }
                }
            }
        }
        for inst in &function.instructions {
            if inst.op() == Some(Op::Store) {
                let (value, address) = (inst.operand(0), inst.operand(1));
                if let Some(index) = value.argument_index(&function.params) {
                    if address.op() == Some(Op::Alloca) {
                        slots.entry(address).or_insert(Slot::Param(index));
                    }
                }
            }
        }
        for inst in &function.instructions {
            if inst.op() != Some(Op::Alloca) || slots.contains_key(inst) {
                continue;
            }
            let slot = match (declared.get(inst), inst.allocated_pointer_space().is_some()) {
                (Some((name, line)), true) => Slot::Local(name.clone(), *line),
                (Some((name, _)), false) => Slot::Object(name.clone()),
                (None, true) => Slot::Temporary,
                (None, false) => Slot::Object(inst.name()),
            };
            slots.insert(*inst, slot);
        }
        for inst in &function.instructions {
            if inst.op() == Some(Op::Store) {
                let address = inst.operand(1);
                if matches!(slots.get(&address), Some(Slot::Temporary)) {
                    temporaries.entry(address).or_default().push(inst.operand(0));
                }
            }
        }
        FunctionTrace { function, slots, temporaries, cwd: std::env::current_dir().ok(), defined_elsewhere }
    }

    /// A call's callee, and whether the program defines it (here or elsewhere).
    pub fn callee(&self, call: Val<'m>) -> Option<(String, bool)> {
        let (name, defined) = call.callee()?;
        let defined = defined || self.defined_elsewhere.contains(&name);
        Some((name, defined))
    }

    /// A call's result: a defined function's return, else something unknown.
    fn call_source(&self, call: Val<'m>) -> Source {
        match self.callee(call) {
            Some((name, true)) => Source::Decl { node: Node::Return { func: name } },
            Some((name, false)) => Source::Unknown { what: format!("result of `{}`", demangled_base(&name)) },
            None => Source::Unknown { what: "indirect call".into() },
        }
    }

    fn node(&self, slot: &Slot) -> Option<Node> {
        let func = self.function.name.clone();
        match slot {
            Slot::Param(index) => Some(Node::Param { func, index: *index }),
            Slot::Local(name, line) => Some(Node::Local { func, name: name.clone(), line: *line }),
            _ => None,
        }
    }

    /// The origins of a pointer value, one declaration step back.
    pub fn origins(&self, value: Val<'m>) -> BTreeSet<Source> {
        let mut out = BTreeSet::new();
        let mut seen = HashSet::new();
        self.collect(value, &mut out, &mut seen);
        out
    }

    fn collect(&self, value: Val<'m>, out: &mut BTreeSet<Source>, seen: &mut HashSet<Val<'m>>) {
        if !seen.insert(value) {
            return;
        }
        if let Some(source) = self.leaf_source(value) {
            out.insert(source);
            return;
        }
        let op = value.op().or_else(|| value.const_expr_op());
        match op {
            Some(Op::GetElementPtr) | Some(Op::Cast) => self.collect(value.operand(0), out, seen),
            Some(Op::Select) => {
                self.collect(value.operand(1), out, seen);
                self.collect(value.operand(2), out, seen);
            }
            Some(Op::Phi) => {
                for i in 0..value.num_operands() {
                    self.collect(value.operand(i), out, seen);
                }
            }
            Some(Op::Alloca) => {
                out.insert(self.alloca_source(value));
            }
            Some(Op::Load) => self.collect_load(value, out, seen),
            Some(Op::Call) => {
                out.insert(self.call_source(value));
            }
            Some(Op::IntToPtr) => {
                out.insert(Source::Unknown { what: "integer cast to pointer".into() });
            }
            _ => {
                out.insert(Source::Unknown { what: "expression".into() });
            }
        }
    }

    /// A value that is an origin by itself, whatever instruction (if any) made it:
    /// a parameter, a global, a null constant.
    fn leaf_source(&self, value: Val<'m>) -> Option<Source> {
        if let Some(index) = value.argument_index(&self.function.params) {
            return Some(Source::Decl { node: Node::Param { func: self.function.name.clone(), index } });
        }
        if value.is_global_variable() {
            return Some(Source::Global { name: value.name() });
        }
        if value.is_null_constant() {
            return Some(Source::Null);
        }
        None
    }

    /// The address of an alloca: a private object.
    fn alloca_source(&self, value: Val<'m>) -> Source {
        match self.slots.get(&value) {
            Some(Slot::Object(name)) => Source::PrivateObject { func: self.function.name.clone(), name: name.clone() },
            // The address of a pointer variable itself: a pointer to a pointer.
            Some(Slot::Param(_)) | Some(Slot::Local(..)) | Some(Slot::Temporary) | None => {
                Source::PrivateObject { func: self.function.name.clone(), name: value.name() }
            }
        }
    }

    /// A load: through a temporary to what was stored in it, else the variable
    /// it reloads, else memory.
    fn collect_load(&self, value: Val<'m>, out: &mut BTreeSet<Source>, seen: &mut HashSet<Val<'m>>) {
        let address = value.operand(0);
        match self.slots.get(&address) {
            Some(Slot::Temporary) => {
                for stored in self.temporaries.get(&address).into_iter().flatten() {
                    self.collect(*stored, out, seen);
                }
            }
            Some(slot @ (Slot::Param(_) | Slot::Local(..))) => {
                out.insert(Source::Decl { node: self.node(slot).expect("declared slot") });
            }
            _ => {
                out.insert(Source::Memory);
            }
        }
    }

    /// Where an instruction comes from, with its file as the user named it:
    /// relative to the working directory when under it, else absolute.
    fn location(&self, inst: &Val<'m>) -> SrcLoc {
        match inst.debug_loc() {
            Some((file, line, col)) => {
                let path = std::path::Path::new(&file);
                let file = match self.cwd.as_deref().and_then(|cwd| path.strip_prefix(cwd).ok()) {
                    Some(relative) => relative.to_string_lossy().into_owned(),
                    None => file,
                };
                SrcLoc { file, line, col }
            }
            None => SrcLoc { file: String::new(), line: 0, col: 0 },
        }
    }

    /// Every flow of a pointer value in this function.
    pub fn flows(&self) -> Vec<Flow> {
        let mut flows = Vec::new();
        let func = self.function.name.clone();
        let mut emit = |value: Val<'m>, to: Sink, inst: &Val<'m>| {
            let Some(space) = value.pointer_space().and_then(spir_space) else { return };
            let at = self.location(inst);
            for from in self.origins(value) {
                flows.push(Flow { from, to: to.clone(), space, func: func.clone(), at: at.clone() });
            }
        };
        for inst in &self.function.instructions {
            match inst.op() {
                Some(Op::Store) => {
                    let (value, address) = (inst.operand(0), inst.operand(1));
                    if value.pointer_space().is_none() {
                        continue;
                    }
                    match self.slots.get(&address) {
                        // The prologue spill of a parameter into its own slot.
                        Some(Slot::Param(i)) if value.argument_index(&self.function.params) == Some(*i) => {}
                        Some(slot @ (Slot::Param(_) | Slot::Local(..))) => {
                            let node = self.node(slot).expect("declared slot");
                            emit(value, Sink::Decl { node }, inst);
                        }
                        Some(Slot::Temporary) => {}
                        _ => emit(value, Sink::Memory, inst),
                    }
                }
                Some(Op::Ret) if inst.num_operands() == 1 => {
                    emit(inst.operand(0), Sink::Decl { node: Node::Return { func: func.clone() } }, inst);
                }
                Some(Op::PtrToInt) => emit(inst.operand(0), Sink::Integer, inst),
                Some(Op::Call) => {
                    let Some((callee, defined)) = self.callee(*inst) else { continue };
                    if callee.starts_with("llvm.") {
                        continue;
                    }
                    for (arg, value) in (0u32..).zip(inst.call_arguments()) {
                        let to = if defined {
                            Sink::Decl { node: Node::Param { func: callee.clone(), index: arg } }
                        } else if callee.starts_with("_Z") {
                            Sink::Builtin { name: demangled_base(&callee).to_string(), mangled: callee.clone(), arg }
                        } else {
                            Sink::External { name: callee.clone(), arg }
                        };
                        emit(value, to, inst);
                    }
                }
                _ => {}
            }
        }
        flows.sort();
        flows.dedup();
        flows
    }

    /// Globals this function writes directly: a store, or a `memcpy`/`memset`
    /// intrinsic, into memory whose address derives from the global.
    pub fn written_globals(&self) -> BTreeSet<String> {
        let mut out = BTreeSet::new();
        for inst in &self.function.instructions {
            let address = match inst.op() {
                Some(Op::Store) => inst.operand(1),
                Some(Op::Call) => match inst.callee() {
                    Some((callee, _)) if ["llvm.memcpy", "llvm.memmove", "llvm.memset"].iter().any(|p| callee.starts_with(p)) => {
                        inst.operand(0)
                    }
                    _ => continue,
                },
                _ => continue,
            };
            for origin in self.origins(address) {
                if let Source::Global { name } = origin {
                    out.insert(name);
                }
            }
        }
        out
    }

    /// Pointer-typed declared locals: (name, line, pointee space).
    pub fn locals(&self) -> Vec<(String, u32, crate::facts::syntax::Space)> {
        let mut out: Vec<_> = self
            .slots
            .iter()
            .filter_map(|(alloca, slot)| match slot {
                Slot::Local(name, line) => {
                    let space = alloca.allocated_pointer_space().and_then(spir_space)?;
                    Some((name.clone(), *line, space))
                }
                _ => None,
            })
            .collect();
        out.sort();
        out
    }
}
