#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace delayq {

// A set of queues, as the service's tokens and `delayq acl` name them: an exact queue name, a
// prefix ending in `*` (`billing-*`), or `*` for all; `\*` is a literal star and `\\` a literal
// backslash, anywhere.
class QueuePattern {
  public:
    // nullopt when the text is empty, ends in a lone backslash, escapes anything but `*` or `\`,
    // has an unescaped `*` before its end, or holds a byte no queue name may (a space, a brace,
    // a control character or one outside ASCII): such a pattern would match nothing, and would
    // not survive being written to a line of the auth file and read back.
    static std::optional<QueuePattern> parse(std::string_view text);

    bool matches(std::string_view queue) const;
    const std::string& text() const { return text_; }
    // The name, or the prefix, with the escapes undone.
    const std::string& literal() const { return literal_; }
    bool is_prefix() const { return prefix_; }

  private:
    std::string text_;     // as written, for listing
    std::string literal_;  // the name, or the prefix, unescaped
    bool prefix_ = false;  // ends in an unescaped `*`
};

}  // namespace delayq
