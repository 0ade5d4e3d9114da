#include "api/json_parse.hpp"

#include <delayq/error.hpp>
#include <string>
#include <vector>

namespace delayq::server {
namespace {

using nlohmann::json;

// Thrown from the parser's callback to stop it at once; becomes an InvalidArgument.
struct OutOfBounds {
    std::string why;
};

}  // namespace

json parse_json(std::string_view text, const JsonBounds& bounds) {
    std::size_t values = 0;
    // The keys met in each object being parsed, innermost last: an object that ends with fewer
    // members than keys met had one twice (the DOM keeps one). Counting, not a set of names,
    // keeps a batch of 1000 messages from allocating a set a message.
    std::vector<std::size_t> keys;
    const json::parser_callback_t check = [&](int depth, json::parse_event_t event,
                                              json& parsed) -> bool {
        if (++values > bounds.max_values) {
            throw OutOfBounds{"JSON holds more than " + std::to_string(bounds.max_values) +
                              " values"};
        }
        switch (event) {
            case json::parse_event_t::object_start:
            case json::parse_event_t::array_start:
                // `depth` counts the containers around this one.
                if (static_cast<std::size_t>(depth) >= bounds.max_depth) {
                    throw OutOfBounds{"JSON nests deeper than " + std::to_string(bounds.max_depth) +
                                      " levels"};
                }
                if (event == json::parse_event_t::object_start) keys.push_back(0);
                break;
            case json::parse_event_t::key:
                ++keys.back();
                break;
            case json::parse_event_t::object_end:
                if (parsed.size() != keys.back()) {
                    throw OutOfBounds{"JSON has a key twice in one object"};
                }
                keys.pop_back();
                break;
            default:
                break;
        }
        return true;
    };
    try {
        return json::parse(text.begin(), text.end(), check);
    } catch (const OutOfBounds& e) {
        throw InvalidArgument(e.why);
    } catch (const json::exception& e) {
        // Not only parse_error: a number too large for a double (1e999) is out_of_range.
        throw InvalidArgument(std::string("invalid JSON: ") + e.what());
    }
}

}  // namespace delayq::server
