//! Cursors and types of a live translation unit (the other half of the
//! libclang boundary, `super`): what the walk asks of a declaration, an
//! expression or a type. Every call is a plain accessor on a value the
//! unit owns; a cursor or a type cannot outlive its unit.

#![allow(non_upper_case_globals)]

use std::marker::PhantomData;

use clang_sys::*;

use super::{expansion_loc, owned, spelling_loc, Alias, Extent, FileLoc};

/// A cursor into the AST of a live translation unit.
#[derive(Clone, Copy)]
pub struct Cursor<'tu> {
    pub(super) raw: CXCursor,
    /// Its unit's (`TranslationUnit::alias`).
    pub(super) alias: Option<&'tu Alias>,
}

/// Cursor kinds the walker distinguishes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CursorKind {
    FunctionDecl,
    ParmDecl,
    VarDecl,
    FieldDecl,
    StructDecl,
    TypedefDecl,
    DeclRefExpr,
    SizeofExpr,
    /// `(T *) e`: an explicit cast.
    CStyleCast,
    /// `f(a, b)`: children are the callee expression, then the arguments.
    CallExpr,
    ParenExpr,
    MacroDefinition,
    MacroExpansion,
    InclusionDirective,
    TypeRef,
    Attribute(i32),
    Other(i32),
}

/// What an expression does to the pointer it yields, as far as the walk
/// that finds a pointer's derived values asks (`parse::uses`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Expression {
    /// `(e)`, or an implicit conversion clang does not expose (one child).
    Transparent,
    /// `a + b`, `a - b`, `a += b`, `a -= b`: pointer arithmetic when the result is a pointer.
    Arithmetic,
    /// `a = b` (its value is `b`'s).
    Assignment,
    /// `a, b` (its value is `b`'s).
    Comma,
    /// `&e`.
    AddressOf,
    /// `*e`.
    Dereference,
    /// `e++`, `--e` and the like: the value is `e`'s, moved.
    Step,
    /// `c ? a : b`.
    Conditional,
    /// `a[i]`.
    Subscript,
    /// `s.f` or `p->f`.
    Member,
    Other,
}

impl<'tu> Cursor<'tu> {
    fn wrap(&self, raw: CXCursor) -> Cursor<'tu> {
        Cursor { raw, alias: self.alias }
    }

    pub fn kind(&self) -> CursorKind {
        // SAFETY: plain value accessors on a valid cursor.
        let kind = unsafe { clang_getCursorKind(self.raw) };
        match kind {
            CXCursor_FunctionDecl => CursorKind::FunctionDecl,
            CXCursor_ParmDecl => CursorKind::ParmDecl,
            CXCursor_VarDecl => CursorKind::VarDecl,
            CXCursor_FieldDecl => CursorKind::FieldDecl,
            CXCursor_StructDecl | CXCursor_UnionDecl => CursorKind::StructDecl,
            CXCursor_TypedefDecl => CursorKind::TypedefDecl,
            CXCursor_DeclRefExpr => CursorKind::DeclRefExpr,
            CXCursor_UnaryExpr => CursorKind::SizeofExpr,
            CXCursor_ParenExpr => CursorKind::ParenExpr,
            CXCursor_CStyleCastExpr => CursorKind::CStyleCast,
            CXCursor_CallExpr => CursorKind::CallExpr,
            CXCursor_MacroDefinition => CursorKind::MacroDefinition,
            CXCursor_MacroExpansion => CursorKind::MacroExpansion,
            CXCursor_InclusionDirective => CursorKind::InclusionDirective,
            CXCursor_TypeRef => CursorKind::TypeRef,
            k if unsafe { clang_isAttribute(k) } != 0 => CursorKind::Attribute(k),
            k => CursorKind::Other(k),
        }
    }

    /// The expression kind (`Expression::Other` for a non-expression).
    pub fn expression(&self) -> Expression {
        // SAFETY: plain value accessors on a valid cursor; the operator kinds
        // are asked only of the cursor kinds that have one.
        unsafe {
            match clang_getCursorKind(self.raw) {
                CXCursor_ParenExpr | CXCursor_UnexposedExpr => Expression::Transparent,
                CXCursor_BinaryOperator | CXCursor_CompoundAssignOperator => match clang_getCursorBinaryOperatorKind(self.raw) {
                    CXBinaryOperator_Add | CXBinaryOperator_Sub | CXBinaryOperator_AddAssign | CXBinaryOperator_SubAssign => {
                        Expression::Arithmetic
                    }
                    CXBinaryOperator_Assign => Expression::Assignment,
                    CXBinaryOperator_Comma => Expression::Comma,
                    _ => Expression::Other,
                },
                CXCursor_UnaryOperator => match clang_getCursorUnaryOperatorKind(self.raw) {
                    CXUnaryOperator_AddrOf => Expression::AddressOf,
                    CXUnaryOperator_Deref => Expression::Dereference,
                    CXUnaryOperator_PostInc | CXUnaryOperator_PostDec | CXUnaryOperator_PreInc | CXUnaryOperator_PreDec => {
                        Expression::Step
                    }
                    _ => Expression::Other,
                },
                CXCursor_ConditionalOperator => Expression::Conditional,
                CXCursor_ArraySubscriptExpr => Expression::Subscript,
                CXCursor_MemberRefExpr => Expression::Member,
                _ => Expression::Other,
            }
        }
    }

    /// True for declarations that come from a system header (the OpenCL base header).
    pub fn in_system_header(&self) -> bool {
        // SAFETY: valid cursor.
        unsafe { clang_Location_isInSystemHeader(clang_getCursorLocation(self.raw)) != 0 }
    }

    pub fn spelling(&self) -> String {
        // SAFETY: valid cursor; the string is owned by `owned`.
        owned(unsafe { clang_getCursorSpelling(self.raw) })
    }

    /// The symbol name the compiler emits (mangled for `overloadable`).
    pub fn mangling(&self) -> String {
        // SAFETY: valid cursor; the string is owned by `owned`.
        owned(unsafe { clang_Cursor_getMangling(self.raw) })
    }

    pub fn extent(&self) -> Extent<'tu> {
        // SAFETY: valid cursor.
        Extent { raw: unsafe { clang_getCursorExtent(self.raw) }, alias: self.alias }
    }

    /// Where the cursor is, as the file position of its expansion.
    pub fn location(&self) -> FileLoc {
        // SAFETY: valid cursor.
        expansion_loc(unsafe { clang_getCursorLocation(self.raw) }, self.alias)
    }

    /// Where the cursor's name is written: in a macro's definition or argument
    /// when a macro produces it (`location` is then the macro use).
    pub fn spelling_location(&self) -> FileLoc {
        // SAFETY: valid cursor.
        spelling_loc(unsafe { clang_getCursorLocation(self.raw) }, self.alias)
    }

    pub fn is_definition(&self) -> bool {
        // SAFETY: valid cursor.
        unsafe { clang_isCursorDefinition(self.raw) != 0 }
    }

    /// A variable declared `static` (at program scope or in a function).
    pub fn is_static(&self) -> bool {
        // SAFETY: valid cursor; any cursor kind is accepted.
        unsafe { clang_Cursor_getStorageClass(self.raw) == CX_SC_Static }
    }

    /// A variable with an initialiser (`= ...`).
    pub fn has_initializer(&self) -> bool {
        // SAFETY: valid cursor; a null result (no initialiser, not a variable) is checked.
        unsafe { clang_Cursor_isNull(clang_Cursor_getVarDeclInitializer(self.raw)) == 0 }
    }

    pub fn referenced(&self) -> Option<Cursor<'tu>> {
        // SAFETY: valid cursor; a null result is checked.
        let r = unsafe { clang_getCursorReferenced(self.raw) };
        if unsafe { clang_Cursor_isNull(r) } != 0 {
            None
        } else {
            Some(self.wrap(r))
        }
    }

    pub fn ty(&self) -> Type<'tu> {
        // SAFETY: valid cursor.
        Type { raw: unsafe { clang_getCursorType(self.raw) }, _tu: PhantomData }
    }

    /// For a typedef declaration: the type it names.
    pub fn typedef_underlying(&self) -> Type<'tu> {
        // SAFETY: valid cursor (libclang returns an invalid type for non-typedefs).
        Type { raw: unsafe { clang_getTypedefDeclUnderlyingType(self.raw) }, _tu: PhantomData }
    }

    pub fn result_type(&self) -> Type<'tu> {
        // SAFETY: valid cursor.
        Type { raw: unsafe { clang_getCursorResultType(self.raw) }, _tu: PhantomData }
    }

    pub fn children(&self) -> Vec<Cursor<'tu>> {
        extern "C" fn collect(cursor: CXCursor, _parent: CXCursor, data: CXClientData) -> CXChildVisitResult {
            // SAFETY: `data` is the Vec passed below, alive for the visit; no panic can occur here.
            let out = unsafe { &mut *(data as *mut Vec<CXCursor>) };
            out.push(cursor);
            CXChildVisit_Continue
        }
        let mut raw: Vec<CXCursor> = Vec::new();
        // SAFETY: the callback only pushes into `raw`.
        unsafe { clang_visitChildren(self.raw, collect, &mut raw as *mut Vec<CXCursor> as CXClientData) };
        raw.into_iter().map(|c| self.wrap(c)).collect()
    }

    /// For a macro definition: true when it takes arguments.
    pub fn is_function_like_macro(&self) -> bool {
        // SAFETY: valid cursor.
        unsafe { clang_Cursor_isMacroFunctionLike(self.raw) != 0 }
    }

    /// For an inclusion directive: the included file's path.
    pub fn included_file(&self) -> Option<String> {
        // SAFETY: valid cursor; a null file is checked.
        let file = unsafe { clang_getIncludedFile(self.raw) };
        if file.is_null() {
            None
        } else {
            Some(owned(unsafe { clang_getFileName(file) }))
        }
    }
}

/// A type of a live translation unit.
#[derive(Clone, Copy)]
pub struct Type<'tu> {
    raw: CXType,
    _tu: PhantomData<&'tu ()>,
}

/// Type kinds the walker distinguishes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TypeKind {
    Pointer,
    ConstantArray,
    IncompleteArray,
    Typedef,
    Elaborated,
    Record,
    FunctionProto,
    Void,
    Other,
}

impl<'tu> Type<'tu> {
    fn wrap(&self, raw: CXType) -> Type<'tu> {
        Type { raw, _tu: PhantomData }
    }
    pub fn kind(&self) -> TypeKind {
        match self.raw.kind {
            CXType_Pointer => TypeKind::Pointer,
            CXType_ConstantArray => TypeKind::ConstantArray,
            CXType_IncompleteArray => TypeKind::IncompleteArray,
            CXType_Typedef => TypeKind::Typedef,
            CXType_Elaborated => TypeKind::Elaborated,
            CXType_Record => TypeKind::Record,
            CXType_FunctionProto => TypeKind::FunctionProto,
            CXType_Void => TypeKind::Void,
            _ => TypeKind::Other,
        }
    }
    pub fn is_array(&self) -> bool {
        matches!(self.kind(), TypeKind::ConstantArray | TypeKind::IncompleteArray)
    }
    pub fn spelling(&self) -> String {
        // SAFETY: valid type.
        owned(unsafe { clang_getTypeSpelling(self.raw) })
    }
    pub fn pointee(&self) -> Type<'tu> {
        // SAFETY: valid type.
        self.wrap(unsafe { clang_getPointeeType(self.raw) })
    }
    pub fn canonical(&self) -> Type<'tu> {
        // SAFETY: valid type.
        self.wrap(unsafe { clang_getCanonicalType(self.raw) })
    }
    pub fn element(&self) -> Type<'tu> {
        // SAFETY: valid type.
        self.wrap(unsafe { clang_getArrayElementType(self.raw) })
    }
    /// Clang's language address space of this type (0 none, 1 global,
    /// 2 local, 3 constant, 4 private, 5 generic).
    pub fn address_space(&self) -> u32 {
        // SAFETY: valid type.
        unsafe { clang_getAddressSpace(self.raw) }
    }
}
