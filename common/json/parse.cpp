#include "json/parse.hpp"

#include <delayq/error.hpp>
#include <string>
#include <utility>
#include <vector>

namespace delayq::json {
namespace {

// Builds the DOM from nlohmann's SAX events, checking the bounds as it goes. Not the parser's
// callback form: that one builds each value, then offers it to a std::function to keep or drop,
// and parsed a batch of 1000 messages 1.8 times slower than a plain parse. A key given twice is
// found where the member is added: the map says it is there already.
class BoundedDom {
  public:
    explicit BoundedDom(const JsonBounds& bounds) : bounds_(bounds) {}

    Json take() { return std::move(root_); }

    bool null() { return add(nullptr); }
    bool boolean(bool v) { return add(v); }
    bool number_integer(Json::number_integer_t v) { return add(v); }
    bool number_unsigned(Json::number_unsigned_t v) { return add(v); }
    bool number_float(Json::number_float_t v, const Json::string_t& /*text*/) { return add(v); }
    bool string(Json::string_t& v) { return add(std::move(v)); }
    bool binary(Json::binary_t& v) { return add(Json::binary(std::move(v))); }

    bool start_object(std::size_t /*size*/) { return open(Json::value_t::object); }
    bool start_array(std::size_t /*size*/) { return open(Json::value_t::array); }
    bool end_object() { return close(); }
    bool end_array() { return close(); }

    bool key(Json::string_t& k) {
        count();
        auto [it, added] =
            open_.back()->get_ref<Json::object_t&>().try_emplace(std::move(k), nullptr);
        if (!added) throw InvalidArgument("JSON has a key twice in one object");
        member_ = &it->second;
        return true;
    }

    bool parse_error(std::size_t /*position*/, const std::string& /*token*/,
                     const Json::exception& e) {
        // Not only parse errors: a number too large for a double (1e999) is out_of_range. The
        // parser's text ends with the token it stopped at ("; last read: '...'"), which may be
        // part of a payload, a secret or a header value: the error keeps where and why, and
        // drops that, since errors are answered and logged.
        std::string what = e.what();
        const std::size_t quoted = what.find("; last read:");
        if (quoted != std::string::npos) what.erase(quoted);
        throw InvalidArgument("invalid JSON: " + what);
    }

  private:
    void count() {
        if (++values_ > bounds_.max_values) {
            throw InvalidArgument("JSON holds more than " + std::to_string(bounds_.max_values) +
                                  " values");
        }
    }

    // Where the next value goes: the root, the end of the array being filled, or the member
    // whose key came last.
    Json* place() {
        if (open_.empty()) return &root_;
        Json& parent = *open_.back();
        if (parent.is_array()) {
            parent.get_ref<Json::array_t&>().emplace_back();
            return &parent.get_ref<Json::array_t&>().back();
        }
        return member_;
    }

    template <class V>
    bool add(V&& value) {
        count();
        *place() = Json(std::forward<V>(value));
        return true;
    }

    bool open(Json::value_t type) {
        count();
        // The containers around this one: the root is at depth 0.
        if (open_.size() >= bounds_.max_depth) {
            throw InvalidArgument("JSON nests deeper than " + std::to_string(bounds_.max_depth) +
                                  " levels");
        }
        Json* slot = place();
        *slot = Json(type);
        // A container's address holds while it is open: only its own members are added then.
        open_.push_back(slot);
        return true;
    }

    bool close() {
        open_.pop_back();
        return true;
    }

    const JsonBounds& bounds_;
    Json root_;
    std::vector<Json*> open_;
    Json* member_ = nullptr;
    std::size_t values_ = 0;
};

}  // namespace

Json parse_json(std::string_view text, const JsonBounds& bounds) {
    BoundedDom dom(bounds);
    Json::sax_parse(text.begin(), text.end(), &dom);
    return dom.take();
}

}  // namespace delayq::json
