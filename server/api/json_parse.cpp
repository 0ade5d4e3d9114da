#include "api/json_parse.hpp"

#include <delayq/error.hpp>
#include <string>
#include <utility>
#include <vector>

namespace delayq::server {
namespace {

using nlohmann::json;

// Builds the DOM from nlohmann's SAX events, checking the bounds as it goes. Not the parser's
// callback form: that one builds each value, then offers it to a std::function to keep or drop,
// and parsed a batch of 1000 messages 1.8 times slower than a plain parse. A key given twice is
// found where the member is added: the map says it is there already.
class BoundedDom {
  public:
    explicit BoundedDom(const JsonBounds& bounds) : bounds_(bounds) {}

    json take() { return std::move(root_); }

    bool null() { return add(nullptr); }
    bool boolean(bool v) { return add(v); }
    bool number_integer(json::number_integer_t v) { return add(v); }
    bool number_unsigned(json::number_unsigned_t v) { return add(v); }
    bool number_float(json::number_float_t v, const json::string_t& /*text*/) { return add(v); }
    bool string(json::string_t& v) { return add(std::move(v)); }
    bool binary(json::binary_t& v) { return add(json::binary(std::move(v))); }

    bool start_object(std::size_t /*size*/) { return open(json::value_t::object); }
    bool start_array(std::size_t /*size*/) { return open(json::value_t::array); }
    bool end_object() { return close(); }
    bool end_array() { return close(); }

    bool key(json::string_t& k) {
        count();
        auto [it, added] =
            open_.back()->get_ref<json::object_t&>().try_emplace(std::move(k), nullptr);
        if (!added) throw InvalidArgument("JSON has a key twice in one object");
        member_ = &it->second;
        return true;
    }

    bool parse_error(std::size_t /*position*/, const std::string& /*token*/,
                     const json::exception& e) {
        // Not only parse errors: a number too large for a double (1e999) is out_of_range.
        throw InvalidArgument(std::string("invalid JSON: ") + e.what());
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
    json* place() {
        if (open_.empty()) return &root_;
        json& parent = *open_.back();
        if (parent.is_array()) {
            parent.get_ref<json::array_t&>().emplace_back();
            return &parent.get_ref<json::array_t&>().back();
        }
        return member_;
    }

    template <class V>
    bool add(V&& value) {
        count();
        *place() = json(std::forward<V>(value));
        return true;
    }

    bool open(json::value_t type) {
        count();
        // The containers around this one: the root is at depth 0.
        if (open_.size() >= bounds_.max_depth) {
            throw InvalidArgument("JSON nests deeper than " + std::to_string(bounds_.max_depth) +
                                  " levels");
        }
        json* slot = place();
        *slot = json(type);
        // A container's address holds while it is open: only its own members are added then.
        open_.push_back(slot);
        return true;
    }

    bool close() {
        open_.pop_back();
        return true;
    }

    const JsonBounds& bounds_;
    json root_;
    std::vector<json*> open_;
    json* member_ = nullptr;
    std::size_t values_ = 0;
};

}  // namespace

json parse_json(std::string_view text, const JsonBounds& bounds) {
    BoundedDom dom(bounds);
    json::sax_parse(text.begin(), text.end(), &dom);
    return dom.take();
}

}  // namespace delayq::server
