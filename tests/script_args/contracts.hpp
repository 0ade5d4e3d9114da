#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "arg_kinds.hpp"
#include "population.hpp"

namespace delayq::test::script_args {

// A script's ARGV contract (its header comment), as templates of well-formed arguments: each
// position's kind says what else it takes. A script whose ARGV has several shapes (nack's
// delay or backoff, list's first and later pages) has a template per shape.
struct Contract {
    std::size_t keys = 16;  // 17 with the write-only key (lib/keys.lua)
    std::vector<std::vector<Param>> templates;
    // ARGV ends in leases, any number up to MAX_BATCH: an extra argument is one more lease.
    bool open_tail = false;
    // Whole argument lists beyond one position's values: too many leases, ids or messages.
    std::vector<std::vector<std::string>> also_malformed{};
};

// The contract of the script of this file stem (ack, fetch, ...), with arguments naming what
// `population` left in the queue; nullopt for a script this test does not know yet.
std::optional<Contract> contract_of(std::string_view stem, const Population& population);

}  // namespace delayq::test::script_args
