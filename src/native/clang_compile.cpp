// clasp's in-process clang: one compilation with clang 19's own library.
//
// Why: a clang-19 process spends ~28 ms loading and relocating libLLVM and
// libclang-cpp before it reads a byte; a 130-line kernel file then compiles
// in ~3 ms. clasp compiles each changed unit three times (IR facts, the
// original and the result for the equivalence check), so running clang as a
// process made start-up ~85% of a batch. Here the same driver arguments go
// through clang's driver to a `CompilerInstance` in this
// process, and the output that `-o -` would have written comes back in
// memory, so what is compiled is exactly what `clang-19 ARGS FILE` compiles.
//
// Thread safety: every call builds its own invocation, diagnostics, file
// manager and LLVM context, as clangd does for its parallel workers; nothing
// here touches global option state (`-mllvm`, which would set LLVM's
// process-wide options, is refused by the Rust side before it gets here).
// LLVM's targets are registered once, by `clasp_initialize_targets`, before
// any compile (registration is not thread-safe).
//
// No C++ exception crosses into Rust: every entry is `noexcept` and catches
// everything (clang and LLVM are built without exceptions, but the standard
// library can still throw, e.g. std::bad_alloc).
//
// The C interface is the whole surface; src/lower/in_process.rs is its only
// caller.

#include <clang/AST/Decl.h>
#include <clang/AST/DeclGroup.h>
#include <clang/AST/ODRHash.h>
#include <clang/Basic/Diagnostic.h>
#include <clang/Basic/DiagnosticOptions.h>
#include <clang/Driver/Compilation.h>
#include <clang/Driver/Driver.h>
#include <clang/Driver/Job.h>
#include <clang/Driver/Tool.h>
#include <clang/Frontend/CompilerInstance.h>
#include <clang/Frontend/CompilerInvocation.h>
#include <clang/Frontend/FrontendAction.h>
#include <clang/Frontend/MultiplexConsumer.h>
#include <clang/Frontend/TextDiagnosticPrinter.h>
#include <clang/FrontendTool/Utils.h>
#include <llvm/ADT/Hashing.h>
#include <llvm/ADT/SmallString.h>
#include <llvm/Support/CrashRecoveryContext.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/TargetParser/Host.h>

#include <cstdlib>
#include <cstring>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace {

// A malloc'd copy the Rust side frees with `clasp_clang_free`.
char *copy_out(const char *data, size_t len, size_t *out_len) {
  char *copy = static_cast<char *>(std::malloc(len == 0 ? 1 : len));
  if (copy != nullptr && len != 0) std::memcpy(copy, data, len);
  *out_len = copy == nullptr ? 0 : len;
  return copy;
}

// Function definitions code generation never sees: `HandleTopLevelDecl`
// (and, for a definition read from a precompiled header,
// `HandleInterestingDecl`) passes on every other declaration. A dropped
// function is still parsed and checked (a body clang rejects is an error as
// before); a call to it emits a declaration. Never a kernel or an
// overloadable function. Each dropped definition is recorded as two
// NUL-terminated fields, its name and its ODR hash (of its declaration and
// body as clang parsed them, macros expanded), then the context's hash
// (`HandleTranslationUnit`) as a record with an empty name. The hashes are
// compared within one process only (LLVM may seed its hashing per process).
class DroppingConsumer : public clang::MultiplexConsumer {
 public:
  DroppingConsumer(std::unique_ptr<clang::ASTConsumer> inner, const std::set<std::string> &drop, std::string &record)
      : clang::MultiplexConsumer(one(std::move(inner))), drop_(drop), record_(record) {}

  bool HandleTopLevelDecl(clang::DeclGroupRef group) override {
    std::optional<clang::DeclGroupRef> left = kept(group);
    return !left || clang::MultiplexConsumer::HandleTopLevelDecl(*left);
  }
  void HandleInterestingDecl(clang::DeclGroupRef group) override {
    if (std::optional<clang::DeclGroupRef> left = kept(group)) clang::MultiplexConsumer::HandleInterestingDecl(*left);
  }
  // Records the context: one hash of every top-level declaration that is
  // not a function definition (types, enumerators and their values, program-
  // scope variables and their initialisers, prototypes), a precompiled
  // header's included. A left-out definition's ODR hash names what it
  // refers to without its value (`enum { HERE = __LINE__ }` read by a left-out
  // helper): equal contexts and equal ODR hashes say the helper compiles alike.
  void HandleTranslationUnit(clang::ASTContext &context) override {
    // Each declaration hashed on its own (a hash numbers the names it meets),
    // in source order; implicit ones left aside: clang declares a builtin
    // where it is first used, so a deleted helper moves or removes those.
    llvm::hash_code combined = llvm::hash_value(0);
    for (const clang::Decl *decl : context.getTranslationUnitDecl()->decls()) {
      if (decl->isImplicit()) continue;
      clang::ODRHash hash;
      if (const auto *function = llvm::dyn_cast<clang::FunctionDecl>(decl)) {
        if (function->doesThisDeclarationHaveABody() || function->getBuiltinID() != 0) continue;
        hash.AddFunctionDecl(function, /*SkipBody=*/true);
      } else if (const auto *enumeration = llvm::dyn_cast<clang::EnumDecl>(decl)) {
        hash.AddEnumDecl(enumeration);
      } else if (const auto *record = llvm::dyn_cast<clang::RecordDecl>(decl)) {
        hash.AddRecordDecl(record);
      } else {
        hash.AddSubDecl(decl);
      }
      combined = llvm::hash_combine(combined, hash.CalculateHash());
    }
    record("", static_cast<unsigned>(static_cast<size_t>(combined)));
    clang::MultiplexConsumer::HandleTranslationUnit(context);
  }

 private:
  static std::vector<std::unique_ptr<clang::ASTConsumer>> one(std::unique_ptr<clang::ASTConsumer> inner) {
    std::vector<std::unique_ptr<clang::ASTConsumer>> consumers;
    consumers.push_back(std::move(inner));
    return consumers;
  }

  // The group without the dropped definitions (the group itself when none
  // is; none when all are: a null group reads as one null declaration).
  std::optional<clang::DeclGroupRef> kept(clang::DeclGroupRef group) {
    llvm::SmallVector<clang::Decl *, 4> left;
    bool any = false;
    for (clang::Decl *decl : group) {
      auto *function = llvm::dyn_cast<clang::FunctionDecl>(decl);
      if (function != nullptr && drops(*function)) {
        record(function->getName(), function->getODRHash());
        any = true;
        continue;
      }
      left.push_back(decl);
    }
    if (!any) return group;
    if (left.empty()) return std::nullopt;
    return clang::DeclGroupRef::Create(left.front()->getASTContext(), left.data(), left.size());
  }

  bool drops(const clang::FunctionDecl &function) const {
    if (!function.doesThisDeclarationHaveABody() || !function.getIdentifier()) return false;
    if (function.hasAttr<clang::OpenCLKernelAttr>() || function.hasAttr<clang::OverloadableAttr>()) return false;
    return drop_.count(function.getName().str()) != 0;
  }

  void record(llvm::StringRef name, unsigned hash) {
    record_ += name.str();
    record_.push_back('\0');
    record_ += std::to_string(hash);
    record_.push_back('\0');
  }

  const std::set<std::string> &drop_;
  std::string &record_;
};

// The action `inner` is, with its consumer wrapped in a `DroppingConsumer`.
class DroppingAction : public clang::WrapperFrontendAction {
 public:
  DroppingAction(std::unique_ptr<clang::FrontendAction> inner, const std::set<std::string> &drop, std::string &record)
      : clang::WrapperFrontendAction(std::move(inner)), drop_(drop), record_(record) {}

 protected:
  std::unique_ptr<clang::ASTConsumer> CreateASTConsumer(clang::CompilerInstance &instance,
                                                        llvm::StringRef file) override {
    std::unique_ptr<clang::ASTConsumer> inner = clang::WrapperFrontendAction::CreateASTConsumer(instance, file);
    if (!inner) return inner;
    return std::make_unique<DroppingConsumer>(std::move(inner), drop_, record_);
  }

 private:
  const std::set<std::string> &drop_;
  std::string &record_;
};

// The cc1 invocation the driver would run for `argv`. Not
// `clang::createInvocation`: that one forces -fsyntax-only, and the output
// here is the IR that `-emit-llvm -c -o -` asks for.
std::shared_ptr<clang::CompilerInvocation> cc1_invocation(llvm::ArrayRef<const char *> argv,
                                                          clang::DiagnosticsEngine &diagnostics) {
  clang::driver::Driver driver(argv[0], llvm::sys::getDefaultTargetTriple(), diagnostics);
  std::unique_ptr<clang::driver::Compilation> compilation(driver.BuildCompilation(argv));
  if (!compilation || diagnostics.hasErrorOccurred()) return nullptr;
  const clang::driver::JobList &jobs = compilation->getJobs();
  if (jobs.size() != 1 || llvm::StringRef(jobs.begin()->getCreator().getName()) != "clang") {
    diagnostics.Report(diagnostics.getCustomDiagID(clang::DiagnosticsEngine::Error,
                                                   "these arguments are not one compilation"));
    return nullptr;
  }
  auto invocation = std::make_shared<clang::CompilerInvocation>();
  if (!clang::CompilerInvocation::CreateFromArgs(*invocation, jobs.begin()->getArguments(), diagnostics, argv[0]))
    return nullptr;
  return invocation;
}

// Runs one compilation; returns 0 on success, 1 when clang reported errors.
// With `main_as`, the input file (the last argument, which must exist: the
// driver checks) is read at that path instead, through a VFS overlay among
// the arguments that lays the input over it: a precompiled preamble's text
// then includes its headers as the unit in that directory does (a quoted
// include looks in its includer's directory first). Not a remapped file:
// a precompiled header records those as overridden, and no later compile
// could read it without the same remapping.
// `read` gets the name of every file the compile found (NUL-terminated each).
// With `declarations_only`, function bodies are skipped where clang can
// (cc1 has no flag for it; clangd sets the same option): a precompiled
// header built so declares its functions without defining them.
// With `drop`, code generation skips the definitions it names
// (`DroppingConsumer`), each recorded in `dropped`.
int compile(llvm::ArrayRef<const char *> argv, const char *main_as, bool declarations_only,
            const std::set<std::string> *drop, llvm::SmallVectorImpl<char> &output, std::string &messages,
            std::string &read, std::string &dropped) {
  llvm::raw_string_ostream message_stream(messages);

  // Diagnostics of the driver itself (unknown arguments, a missing input).
  clang::DiagnosticOptions *driver_options = new clang::DiagnosticOptions();
  driver_options->ShowColors = false;
  llvm::IntrusiveRefCntPtr<clang::DiagnosticsEngine> driver_diagnostics =
      clang::CompilerInstance::createDiagnostics(driver_options,
                                                 new clang::TextDiagnosticPrinter(message_stream, driver_options),
                                                 /*ShouldOwnClient=*/true);
  std::shared_ptr<clang::CompilerInvocation> invocation = cc1_invocation(argv, *driver_diagnostics);
  if (!invocation || driver_diagnostics->hasErrorOccurred()) {
    message_stream.flush();
    if (messages.empty()) messages = "error: clang could not build a compilation from these arguments";
    return 1;
  }
  // The driver asks cc1 to leak its AST and module at exit (-disable-free):
  // right for a process about to end, a leak per unit here.
  invocation->getFrontendOpts().DisableFree = false;
  invocation->getCodeGenOpts().DisableFree = false;
  // The driver colours diagnostics when stderr is a terminal; these are read, not shown.
  invocation->getDiagnosticOpts().ShowColors = false;
  if (declarations_only) invocation->getFrontendOpts().SkipFunctionBodies = true;
  if (main_as != nullptr) {
    auto &inputs = invocation->getFrontendOpts().Inputs;
    if (inputs.size() != 1 || !inputs[0].isFile()) {
      messages += "error: clang has no one input file to compile under another name";
      return 1;
    }
    inputs[0] = clang::FrontendInputFile(main_as, inputs[0].getKind(), inputs[0].isSystem());
  }

  clang::CompilerInstance instance;
  instance.setInvocation(invocation);
  instance.createDiagnostics(new clang::TextDiagnosticPrinter(message_stream, &invocation->getDiagnosticOpts()),
                             /*ShouldOwnClient=*/true);
  // "N errors generated." and any verbose output go to the messages, not to our stderr.
  instance.setVerboseOutputStream(message_stream);
  // What `-o -` would have written (code generation takes this stream when set).
  instance.setOutputStream(std::make_unique<llvm::raw_svector_ostream>(output));

  std::unique_ptr<clang::FrontendAction> action = clang::CreateFrontendAction(instance);
  if (action && drop != nullptr) action = std::make_unique<DroppingAction>(std::move(action), *drop, dropped);
  if (!action) {
    messages += "error: clang has no action for these arguments";
    return 1;
  }
  bool ok = instance.ExecuteAction(*action);
  message_stream.flush();
  if (instance.hasFileManager()) {
    llvm::SmallVector<clang::OptionalFileEntryRef, 16> files;
    instance.getFileManager().GetUniqueIDMapping(files);
    for (const clang::OptionalFileEntryRef &file : files) {
      if (!file) continue;
      read += file->getName().str();
      read.push_back('\0');
    }
  }
  return ok && !instance.getDiagnostics().hasErrorOccurred() ? 0 : 1;
}

}  // namespace

extern "C" {

// Compiles with `argv` (argv[0] is the clang executable whose resource
// directory is used, the input file last, as on a command line), the input
// compiled as if at `main_as` when that is not null (see `compile`), function
// bodies skipped when `declarations_only` is not 0, and, when `drop` is not
// null, the functions its `drop_len` bytes name (NUL-terminated names)
// left out of code generation. On return `*dropped` holds the record of
// those left out and the context's hash (see `DroppingConsumer`; free with
// `clasp_clang_free`);
// `*read` holds the names of the files the compile found, each NUL-terminated
// (free with `clasp_clang_free`), and
// `*output` holds what clang would have written to `-o -` and `*messages` its
// diagnostics, both malloc'd (free with `clasp_clang_free`). Returns 0 on
// success, 1 when clang reported an error, 2 when clang crashed (caught by
// CrashRecoveryContext, as libclang catches parse crashes: best effort, what
// clang leaves behind after a crash is not guaranteed, so under clasp's
// supervisor the worker ends at once), 3 when an exception was caught.
int clasp_clang_compile(const char *const *argv, size_t argc, const char *main_as, int declarations_only,
                        const char *drop, size_t drop_len, char **output, size_t *output_len, char **messages,
                        size_t *messages_len, char **read, size_t *read_len, char **dropped,
                        size_t *dropped_len) noexcept {
  *dropped = nullptr;
  *dropped_len = 0;
  *output = nullptr;
  *output_len = 0;
  *messages = nullptr;
  *messages_len = 0;
  *read = nullptr;
  *read_len = 0;
  try {
    llvm::SmallString<0> produced;
    std::string text, files, left_out;
    std::set<std::string> names;
    for (size_t at = 0; drop != nullptr && at < drop_len;) {
      size_t end = at;
      while (end < drop_len && drop[end] != '\0') ++end;
      names.emplace(drop + at, end - at);
      at = end + 1;
    }
    int status = 2;
    llvm::CrashRecoveryContext::Enable();
    llvm::CrashRecoveryContext recovery;
    bool finished = recovery.RunSafely([&] {
      try {
        status = compile(llvm::ArrayRef<const char *>(argv, argc), main_as, declarations_only != 0,
                         drop == nullptr ? nullptr : &names, produced, text, files, left_out);
      } catch (const std::exception &e) {
        status = 3;
        text += std::string("error: clang threw an exception: ") + e.what();
      } catch (...) {
        status = 3;
        text += "error: clang threw an exception";
      }
    });
    if (!finished) {
      status = 2;
      text += "error: clang crashed on this file";
    }
    *output = copy_out(produced.data(), produced.size(), output_len);
    *messages = copy_out(text.data(), text.size(), messages_len);
    *read = copy_out(files.data(), files.size(), read_len);
    *dropped = copy_out(left_out.data(), left_out.size(), dropped_len);
    return status;
  } catch (...) {
    // Out of memory while copying out, or anything else: no buffer is handed over.
    static const char failure[] = "error: clang failed outside the compilation (out of memory?)";
    *messages = copy_out(failure, sizeof failure - 1, messages_len);
    return 3;
  }
}

// Registers every LLVM target, as the clang executable does before it
// compiles, so that code generation for any triple (amdgcn's passes
// included) is what `clang-19` does. Idempotent and safe from any thread.
void clasp_initialize_targets() noexcept {
  static std::once_flag once;
  try {
    std::call_once(once, [] {
      llvm::InitializeAllTargetInfos();
      llvm::InitializeAllTargets();
      llvm::InitializeAllTargetMCs();
      llvm::InitializeAllAsmPrinters();
      llvm::InitializeAllAsmParsers();
    });
  } catch (...) {
    // std::call_once only throws if the system cannot run it; the targets stay unregistered
    // and a compile for a target then fails with clang's own "unable to create target".
  }
}

void clasp_clang_free(char *buffer) noexcept { std::free(buffer); }

}  // extern "C"
