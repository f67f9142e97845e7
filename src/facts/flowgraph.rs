//! Queries over a unit's flow edges: what reaches a declaration, where it
//! ultimately comes from, and which builtins it reaches. Shared by
//! `analyze` (to report) and `infer` (to decide).

use std::collections::BTreeSet;

use foldhash::{HashSet, HashSetExt};

use crate::facts::ir::{Flow, IrFacts, Node, Sink, Source};

pub struct FlowGraph<'a> {
    pub facts: &'a IrFacts,
}

/// A builtin call a declaration's value reaches, possibly through other declarations.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Reached<'a> {
    pub flow: &'a Flow,
    /// The declaration whose value is passed directly (the start node or one downstream).
    pub via: Node,
}

impl<'a> FlowGraph<'a> {
    pub fn new(facts: &'a IrFacts) -> Self {
        FlowGraph { facts }
    }

    /// Flows into `node`.
    pub fn incoming(&self, node: &Node) -> impl Iterator<Item = &'a Flow> + '_ {
        let node = node.clone();
        self.facts.flows.iter().map(|f| &**f).filter(move |f| matches!(&f.to, Sink::Decl { node: n } if *n == node))
    }

    /// Flows out of `node`.
    pub fn outgoing(&self, node: &Node) -> impl Iterator<Item = &'a Flow> + '_ {
        let node = node.clone();
        self.facts.flows.iter().map(|f| &**f).filter(move |f| matches!(&f.from, Source::Decl { node: n } if *n == node))
    }

    /// The sources a value ultimately comes from: walks back through
    /// declarations to kernel params, globals, private objects, memory.
    pub fn roots(&self, source: &Source) -> BTreeSet<Source> {
        let mut out = BTreeSet::new();
        let mut seen = HashSet::new();
        let mut stack = vec![source.clone()];
        while let Some(s) = stack.pop() {
            if !seen.insert(s.clone()) {
                continue;
            }
            match &s {
                Source::Decl { node } => {
                    let before = stack.len();
                    stack.extend(self.incoming(node).map(|f| f.from.clone()));
                    if stack.len() == before {
                        out.insert(s.clone());
                    }
                }
                _ => {
                    out.insert(s.clone());
                }
            }
        }
        out
    }

    /// Every non-declaration use a node's value reaches (builtins,
    /// memory, integers, external calls), following declarations forward.
    pub fn reached_uses(&self, start: &Node) -> Vec<Reached<'a>> {
        let mut out = Vec::new();
        let mut seen = HashSet::new();
        let mut stack = vec![start.clone()];
        while let Some(node) = stack.pop() {
            if !seen.insert(node.clone()) {
                continue;
            }
            for flow in self.outgoing(&node) {
                match &flow.to {
                    Sink::Decl { node: next } => stack.push(next.clone()),
                    _ => out.push(Reached { flow, via: node.clone() }),
                }
            }
        }
        out.sort();
        out
    }

    /// Declarations reachable forward from `start` (excluding itself unless on a cycle).
    pub fn downstream(&self, start: &Node) -> BTreeSet<Node> {
        let mut out = BTreeSet::new();
        let mut stack: Vec<Node> = self.outgoing_decls(start).collect();
        while let Some(node) = stack.pop() {
            if out.insert(node.clone()) {
                stack.extend(self.outgoing_decls(&node));
            }
        }
        out
    }

    fn outgoing_decls(&self, node: &Node) -> impl Iterator<Item = Node> + '_ {
        self.outgoing(node).filter_map(|f| match &f.to {
            Sink::Decl { node } => Some(node.clone()),
            _ => None,
        })
    }
}
