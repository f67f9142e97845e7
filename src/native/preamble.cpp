// A kernel file's preamble, found with clang's own raw lexer: the leading
// run of comments and preprocessor directives (the `#include`s of the
// headers every unit of a big codebase shares), ended at a line start with
// every conditional closed.
//
// Why: clasp compiles each unit three times (its facts, and the original and
// the result for the equivalence check), and on a codebase whose units
// include the same large headers the headers are most of each compile.
// Units whose preambles are the same text (comments aside) under the same
// options share one precompiled header of it (src/lower/preamble.rs), and
// each unit's compile skips its own preamble bytes (cc1's -preamble-bytes).
//
// The lexer is clang's, in raw mode, as `clang::Lexer::ComputePreamble`
// uses it (which stops in the middle of an `#if` block; a precompiled
// header must close its conditionals, hence this walk).

#include <clang/Basic/LangOptions.h>
#include <clang/Basic/SourceLocation.h>
#include <clang/Basic/TokenKinds.h>
#include <clang/Lex/Lexer.h>
#include <clang/Lex/Token.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

namespace {

// The directives a preamble may hold. Others (`#include_next`, `#import`,
// anything unknown) end it: their meaning depends on where the file is.
enum class Directive { Open, Close, Include, Neutral, Other };

Directive classify(llvm::StringRef name) {
  if (name == "if" || name == "ifdef" || name == "ifndef") return Directive::Open;
  if (name == "endif") return Directive::Close;
  if (name == "include") return Directive::Include;
  if (name == "elif" || name == "elifdef" || name == "elifndef" || name == "else" || name == "define" ||
      name == "undef" || name == "pragma" || name == "line" || name == "error" || name == "warning")
    return Directive::Neutral;
  return Directive::Other;
}

size_t line_start(const std::string &text, size_t offset) {
  while (offset > 0 && text[offset - 1] != '\n') --offset;
  return offset;
}

struct Found {
  size_t size = 0;
  size_t includes = 0;
  std::vector<std::pair<size_t, size_t>> comments;
};

Found find_preamble(const std::string &text) {
  clang::LangOptions language;
  language.OpenCL = true;
  // Raw locations count from 1 (0 is the invalid location), as in ComputePreamble.
  const clang::SourceLocation base = clang::SourceLocation::getFromRawEncoding(1);
  auto offset = [&](const clang::Token &token) { return size_t(token.getLocation().getRawEncoding() - 1); };
  clang::Lexer lexer(base, language, text.data(), text.data(), text.data() + text.size());
  lexer.SetCommentRetentionState(true);

  Found found;
  std::vector<std::pair<size_t, size_t>> comments;
  size_t depth = 0, includes = 0;
  // A comment is whitespace to the preprocessor: a `#` after comments only
  // starts its line, though the raw lexer gave the line start to the comment.
  bool line_started_by_comments = false;
  clang::Token token;
  lexer.LexFromRawLexer(token);
  while (!token.is(clang::tok::eof)) {
    if (token.is(clang::tok::comment)) {
      comments.emplace_back(offset(token), offset(token) + token.getLength());
      line_started_by_comments = line_started_by_comments || token.isAtStartOfLine();
      lexer.LexFromRawLexer(token);
      continue;
    }
    const bool at_line_start = token.isAtStartOfLine() || line_started_by_comments;
    line_started_by_comments = false;
    if (!token.is(clang::tok::hash) || !at_line_start) break;
    lexer.setParsingPreprocessorDirective(true);
    lexer.LexFromRawLexer(token);
    llvm::StringRef name = token.is(clang::tok::raw_identifier) ? token.getRawIdentifier() : "";
    Directive directive = name.empty() ? Directive::Neutral : classify(name);
    while (!token.is(clang::tok::eod) && !token.is(clang::tok::eof)) {
      if (token.is(clang::tok::comment)) comments.emplace_back(offset(token), offset(token) + token.getLength());
      lexer.LexFromRawLexer(token);
    }
    lexer.setParsingPreprocessorDirective(false);
    if (directive == Directive::Other || (directive == Directive::Close && depth == 0)) break;
    if (directive == Directive::Open) ++depth;
    if (directive == Directive::Close) --depth;
    if (directive == Directive::Include) ++includes;
    lexer.LexFromRawLexer(token);
    if (depth == 0) {
      found.size = token.is(clang::tok::eof) ? text.size() : line_start(text, offset(token));
      found.includes = includes;
      found.comments = comments;
    }
  }
  return found;
}

char *copy_out(const std::string &text, size_t *out_len) {
  char *copy = static_cast<char *>(std::malloc(text.empty() ? 1 : text.size()));
  if (copy != nullptr && !text.empty()) std::memcpy(copy, text.data(), text.size());
  *out_len = copy == nullptr ? 0 : text.size();
  return copy;
}

}  // namespace

extern "C" {

// The preamble of `text` (`len` bytes): its size in bytes (a line start; 0
// when there is none), how many `#include`s it holds, and in `*normalized`
// (malloc'd, free with `clasp_clang_free`) its text with every comment
// replaced by one space and the newlines it spanned: preambles that differ
// only in comments normalise alike, and every line keeps its number. In
// `*comments` (malloc'd, free with `clasp_clang_free`), `*comments_len`
// offsets: each comment's start and end in `text`, in order, two by two.
// Returns 0, or 3 when anything was thrown (nothing is handed over).
int clasp_preamble(const char *text, size_t len, size_t *size, size_t *includes, char **normalized,
                   size_t *normalized_len, size_t **comments, size_t *comments_len) noexcept {
  *size = 0;
  *includes = 0;
  *normalized = nullptr;
  *normalized_len = 0;
  *comments = nullptr;
  *comments_len = 0;
  try {
    // The lexer reads one byte past the end: std::string keeps a NUL there.
    const std::string buffer(text, len);
    Found found = find_preamble(buffer);
    std::string out;
    out.reserve(found.size);
    std::vector<size_t> bounds;
    size_t at = 0;
    for (const auto &[start, end] : found.comments) {
      if (end > found.size) break;
      bounds.push_back(start);
      bounds.push_back(end);
      out.append(buffer, at, start - at);
      out.push_back(' ');
      for (size_t i = start; i < end; ++i)
        if (buffer[i] == '\n') out.push_back('\n');
      at = end;
    }
    out.append(buffer, at, found.size - at);
    *normalized = copy_out(out, normalized_len);
    if (*normalized == nullptr) return 3;
    *comments = static_cast<size_t *>(std::malloc(bounds.empty() ? 1 : bounds.size() * sizeof(size_t)));
    if (*comments == nullptr) {
      std::free(*normalized);
      *normalized = nullptr;
      *normalized_len = 0;
      return 3;
    }
    if (!bounds.empty()) std::memcpy(*comments, bounds.data(), bounds.size() * sizeof(size_t));
    *comments_len = bounds.size();
    *size = found.size;
    *includes = found.includes;
    return 0;
  } catch (...) {
    return 3;
  }
}

}  // extern "C"
