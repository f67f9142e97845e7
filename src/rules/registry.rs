//! The code table (`codes::code_table!`) read at the rules stage: each
//! code's documentation (a rule's is the `DOC` of its module, a reason's a
//! constant of `codes::reasons`, a lint's one of `codes::lints`), and, for the rules of scope
//! `Declaration`, which one changes a declaration (`applies`) and its fix
//! (`fix`). `// clasp: keep(CODE)` and the per-declaration fixes both ask
//! here, so a declaration rule is chosen in one place.

use crate::codes::{code_table, Code, Doc};
use crate::facts::syntax::PointerDecl;
use crate::front::unit::Unit;
use crate::infer::DeclDecision;

use super::Fix;

/// Expands `$($body)*` for a rule of scope `Declaration` only.
macro_rules! if_declaration {
    (Declaration, $($body:tt)*) => { $($body)* };
    ($other:ident, $($body:tt)*) => {};
}

/// Makes `doc`, `applies` and `declaration_fix` from the table.
macro_rules! define_registry {
    (
        rules { $( $rule:ident = $rule_code:literal, $($module:ident)::+, $scope:ident; )* }
        reasons { $( $reason:ident = $reason_code:literal, $($doc:ident)::+, $effect:ident; )* }
        lints { $( $lint:ident = $lint_code:literal, $lint_doc:ident; )* }
    ) => {
        /// The documentation of `code`, under the headings `clasp rule` prints.
        pub fn doc(code: Code) -> Doc {
            match code {
                $( Code::$rule => super::$($module)::+::DOC, )*
                $( Code::$reason => crate::codes::reasons::$($doc)::+, )*
                $( Code::$lint => crate::codes::lints::$lint_doc, )*
            }
        }

        /// Whether rule `code` changes `decl`: its module's `applies`, for a
        /// rule of scope `Declaration`; no other code does.
        pub fn applies(code: Code, decl: &PointerDecl) -> bool {
            $( if_declaration!($scope, if code == Code::$rule { return super::$($module)::+::applies(decl); }); )*
            false
        }

        /// The fix of a generic decision, by the declaration rule that applies to it.
        pub fn declaration_fix(unit: &Unit, decision: &DeclDecision) -> Option<Fix> {
            let rule = declaration_rule(&decision.decl)?;
            $( if_declaration!($scope, if rule == Code::$rule { return super::$($module)::+::fix(unit, decision); }); )*
            None
        }
    };
}

code_table!(define_registry);

/// The declaration rule that would change `decl` (the rules' `applies` take
/// disjoint declarations, so the table's order does not choose).
pub fn declaration_rule(decl: &PointerDecl) -> Option<Code> {
    Code::rules().find(|rule| applies(*rule, decl))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codes::Scope;
    use crate::facts::syntax::{ArrayDeclarator, ArrayForm, ByteRange, DeclKind, Pos};

    #[test]
    fn every_code_has_a_one_line_summary_and_every_heading_filled() {
        for &code in Code::ALL {
            let doc = doc(code);
            assert!(!doc.summary.trim().is_empty() && !doc.summary.contains('\n'), "{code}: the summary is one line");
            let sections = doc.sections(code.kind());
            for (heading, text) in sections {
                assert!(!text.trim().is_empty(), "{code}: `{heading}` is empty");
            }
        }
    }

    #[test]
    fn every_example_indents_what_its_braces_hold() {
        for &code in Code::ALL {
            let mut depth = 0usize;
            for line in doc(code).example.lines() {
                let closes = line.trim_start().starts_with('}');
                let inside = depth > usize::from(closes);
                let directive = line.starts_with('#');
                assert!(
                    !inside || line.trim().is_empty() || directive || line.starts_with("    "),
                    "{code}: `{line}` is not indented"
                );
                depth = (depth + line.matches('{').count()).saturating_sub(line.matches('}').count());
            }
        }
    }

    /// A pointer declaration of `kind`, an array parameter when `array`.
    fn declaration(kind: DeclKind, array: bool) -> PointerDecl {
        let range = ByteRange { file: 0, start: 0, end: 0 };
        PointerDecl {
            kind,
            name: "p".into(),
            pos: Pos { file: 0, line: 1, col: 1, offset: 0 },
            type_text: "float *".into(),
            levels: Vec::new(),
            array: array.then(|| ArrayDeclarator {
                spelled: "[4]".into(),
                form: ArrayForm::Brackets { brackets: range, name_start: 0, more_dimensions: false },
            }),
            in_macro: None,
            sizeof_used: false,
            casts: Vec::new(),
        }
    }

    #[test]
    fn exactly_one_declaration_rule_applies_to_each_kind_of_declaration() {
        let cases = [
            (DeclKind::Param(0), false, Code::GenericParam),
            (DeclKind::Param(2), true, Code::ArrayParamToPointer),
            (DeclKind::Local, false, Code::GenericLocal),
            (DeclKind::Return, false, Code::GenericReturn),
        ];
        for (kind, array, expected) in cases {
            let decl = declaration(kind, array);
            assert_eq!(declaration_rule(&decl), Some(expected), "{kind:?}");
            // Disjoint: the table's order does not choose.
            let taking: Vec<Code> = Code::ALL.iter().copied().filter(|c| applies(*c, &decl)).collect();
            assert_eq!(taking, [expected], "{kind:?}");
        }
    }

    #[test]
    fn the_suppressed_documentation_names_every_rule_that_can_be_chosen() {
        let what = doc(Code::Suppressed).what;
        for code in Code::selectable() {
            assert!(what.contains(&format!("`{code}`")), "`clasp rule suppressed` says {code} can be chosen");
        }
    }

    #[test]
    fn no_two_codes_share_a_documentation_and_declaration_rules_show_before_and_after() {
        let mut seen = std::collections::BTreeMap::new();
        for &code in Code::ALL {
            let doc = doc(code);
            if let Some(other) = seen.insert(doc.what, code) {
                panic!("{code} and {other} have the same documentation");
            }
        }
        for code in Code::rules().filter(|c| c.scope() == Some(Scope::Declaration)) {
            assert!(doc(code).example.contains("// before"), "{code}: a rule's example shows before and after");
        }
    }
}
