//! Values as LLVM prints them: one at a time (`Val::print`), or many
//! functions of one module with one slot tracker (`SlotPrinter`,
//! `src/native/function_print.cpp`), which numbers the module once
//! instead of once per value printed.

use std::marker::PhantomData;

use llvm_sys::core::*;
use llvm_sys::prelude::*;

use super::{LoadedModule, Val};

extern "C" {
    fn clasp_slot_tracker_new(module: LLVMModuleRef) -> *mut std::ffi::c_void;
    fn clasp_print_value(tracker: *mut std::ffi::c_void, value: LLVMValueRef) -> *mut std::os::raw::c_char;
    fn clasp_slot_tracker_free(tracker: *mut std::ffi::c_void);
}

/// The text of a message LLVM allocated, which is then disposed of.
///
/// SAFETY: LLVM allocated `text` with `LLVMPrint*ToString` (or it is null), and nothing else frees it.
pub(super) unsafe fn take_message(text: *mut std::os::raw::c_char) -> String {
    if text.is_null() {
        return String::new();
    }
    let owned = std::ffi::CStr::from_ptr(text).to_string_lossy().into_owned();
    LLVMDisposeMessage(text);
    owned
}

impl Val<'_> {
    /// The value as LLVM prints it (an instruction's line, a constant's
    /// type and value, a global's definition).
    pub(crate) fn print(&self) -> String {
        // SAFETY: valid value; the message is disposed of by `take_message`.
        unsafe { take_message(LLVMPrintValueToString(self.raw)) }
    }
}

/// One module's values printed as `Val::print` prints them, numbered once
/// for the whole module. A value renamed or added while it lives may print
/// with the numbers it had when the printer was made.
pub(crate) struct SlotPrinter<'m> {
    module: LLVMModuleRef,
    tracker: *mut std::ffi::c_void,
    _module: PhantomData<&'m ()>,
}

impl LoadedModule<'_> {
    /// A printer for this module's values (see `SlotPrinter`).
    pub(crate) fn slot_printer(&self) -> SlotPrinter<'_> {
        // SAFETY: the module is alive and outlives the printer, which borrows it
        // (so no function of it can be deleted while the printer lives).
        let module = self.module().as_mut_ptr();
        let tracker = unsafe { clasp_slot_tracker_new(module) };
        SlotPrinter { module, tracker, _module: PhantomData }
    }
}

impl<'m> SlotPrinter<'m> {
    /// Whether the tracker could be made (else each value is printed alone).
    #[cfg(test)]
    pub(crate) fn has_tracker(&self) -> bool {
        !self.tracker.is_null()
    }

    /// A function's text, as `Val::print` prints it (which it is when no
    /// tracker could be made, or `function` is no function of this module).
    pub(crate) fn print_function(&self, function: Val<'m>) -> String {
        // SAFETY: valid value; the kind is checked before its parent is read.
        let ours = unsafe { !LLVMIsAFunction(function.raw).is_null() && LLVMGetGlobalParent(function.raw) == self.module };
        if self.tracker.is_null() || !ours {
            return function.print();
        }
        // SAFETY: `function` belongs to the tracker's module, which is alive; the
        // text is malloc'd by the shim and freed here once.
        unsafe {
            let text = clasp_print_value(self.tracker, function.raw);
            if text.is_null() {
                return String::new();
            }
            let printed = std::ffi::CStr::from_ptr(text).to_string_lossy().into_owned();
            libc::free(text.cast());
            printed
        }
    }
}

impl Drop for SlotPrinter<'_> {
    fn drop(&mut self) {
        if !self.tracker.is_null() {
            // SAFETY: made by `clasp_slot_tracker_new`, freed once.
            unsafe { clasp_slot_tracker_free(self.tracker) }
        }
    }
}
