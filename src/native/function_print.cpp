// Printing many functions of one module as LLVM's own printer does, with one
// slot tracker for them all.
//
// Why: `LLVMPrintValueToString` builds a fresh `ModuleSlotTracker` for each
// value it prints, and a tracker numbers the whole module (every global,
// every function's attributes and metadata) before it prints anything. The
// equivalence check prints each function the kernels reach on both sides
// of a unit to find the ones defined alike, so printing them one by one
// cost the module's size once per function: on a codebase whose units
// include large headers, more than the pass pipeline itself. A tracker
// built once and handed to `Value::print` prints exactly the same text.

#include <llvm-c/Core.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/ModuleSlotTracker.h>
#include <llvm/Support/raw_ostream.h>

#include <cstdlib>
#include <cstring>
#include <new>
#include <string>

extern "C" {

// A slot tracker for `module` (which must outlive it and must not change
// while it lives), or null when anything was thrown. Free it with
// `clasp_slot_tracker_free`.
void *clasp_slot_tracker_new(LLVMModuleRef module) noexcept {
  try {
    return new llvm::ModuleSlotTracker(llvm::unwrap(module));
  } catch (...) {
    return nullptr;
  }
}

// `value` printed as `LLVMPrintValueToString` prints it, numbered by
// `tracker`: a malloc'd NUL-terminated string (free it with `free`), or null
// when anything was thrown.
char *clasp_print_value(void *tracker, LLVMValueRef value) noexcept {
  try {
    std::string text;
    llvm::raw_string_ostream out(text);
    llvm::unwrap(value)->print(out, *static_cast<llvm::ModuleSlotTracker *>(tracker));
    out.flush();
    char *copy = static_cast<char *>(std::malloc(text.size() + 1));
    if (copy != nullptr) std::memcpy(copy, text.c_str(), text.size() + 1);
    return copy;
  } catch (...) {
    return nullptr;
  }
}

void clasp_slot_tracker_free(void *tracker) noexcept {
  delete static_cast<llvm::ModuleSlotTracker *>(tracker);
}

}  // extern "C"
