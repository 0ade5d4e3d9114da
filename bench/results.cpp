// Medians over runs, targets, and the JSON lines.

#include <algorithm>
#include <cmath>
#include <iostream>
#include <sstream>

#include "harness.hpp"

namespace delayq::bench {
namespace {

std::vector<Json>& emitted_lines() {
    static std::vector<Json> lines;
    return lines;
}

}  // namespace

double median(std::vector<double> v) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    std::size_t m = v.size() / 2;
    return v.size() % 2 == 1 ? v[m] : (v[m - 1] + v[m]) / 2;
}

double percentile_sorted(const std::vector<double>& sorted, double p) {
    if (sorted.empty()) return 0;
    auto rank = static_cast<std::size_t>(std::ceil(p / 100.0 * static_cast<double>(sorted.size())));
    rank = std::clamp<std::size_t>(rank, 1, sorted.size());
    return sorted[rank - 1];
}

double tidy(double x) {
    if (!std::isfinite(x) || x == 0) return x;
    double a = std::fabs(x);
    if (a >= 1000) return std::round(x);
    int decimals = std::clamp(4 - static_cast<int>(std::ceil(std::log10(a))), 0, 6);
    double scale = std::pow(10.0, decimals);
    return std::round(x * scale) / scale;
}

namespace {

Json reduce(const std::vector<const Json*>& values) {
    const Json& first = *values.front();
    if (first.is_object()) {
        Json out = Json::object();
        for (const auto& [key, v] : first.items()) {
            std::vector<const Json*> column;
            for (const Json* run : values) {
                if (run->contains(key)) column.push_back(&(*run)[key]);
            }
            out[key] = reduce(column);
        }
        return out;
    }
    if (first.is_number() && !first.is_boolean()) {
        std::vector<double> nums;
        bool integral = true;
        for (const Json* v : values) {
            if (!v->is_number()) continue;
            nums.push_back(v->get<double>());
            integral = integral && v->is_number_integer();
        }
        double m = median(nums);
        if (integral && m == std::floor(m)) return static_cast<std::int64_t>(m);
        return m;
    }
    if (first.is_boolean()) {  // true only when every run says so (e.g. "complete")
        bool all = true;
        for (const Json* v : values) all = all && v->is_boolean() && v->get<bool>();
        return all;
    }
    return first;
}

const Json* find_path(const Json& j, const std::string& path) {
    const Json* cur = &j;
    std::size_t pos = 0;
    while (pos <= path.size()) {
        auto dot = path.find('.', pos);
        if (dot == std::string::npos) dot = path.size();
        std::string key = path.substr(pos, dot - pos);
        if (!cur->is_object() || !cur->contains(key)) return nullptr;
        cur = &(*cur)[key];
        pos = dot + 1;
    }
    return cur;
}

Json tidy_all(const Json& j) {
    if (j.is_object()) {
        Json out = Json::object();
        for (const auto& [k, v] : j.items()) out[k] = tidy_all(v);
        return out;
    }
    if (j.is_array()) {
        Json out = Json::array();
        for (const auto& v : j) out.push_back(tidy_all(v));
        return out;
    }
    if (j.is_number_float()) return tidy(j.get<double>());
    return j;
}

}  // namespace

Json median_of_runs(const std::vector<Json>& runs, const std::string& headline) {
    std::vector<const Json*> ptrs;
    ptrs.reserve(runs.size());
    for (const auto& r : runs) ptrs.push_back(&r);
    Json out = reduce(ptrs);
    out["runs"] = runs.size();
    // Each field's median is taken on its own; the per-run values of the headline and of Redis's
    // CPU per message show the spread behind them.
    for (const std::string& field : {headline, std::string("redis_cpu_us_per_msg")}) {
        if (field.empty() || !find_path(runs.front(), field)) continue;
        Json all = Json::array();
        for (const auto& r : runs) {
            if (const Json* v = find_path(r, field)) all.push_back(*v);
        }
        std::string name = field;
        std::replace(name.begin(), name.end(), '.', '_');
        out[name + "_runs"] = all;
    }
    return out;
}

void apply_targets(Json& line, const std::vector<Target>& targets) {
    Json spec = Json::object();
    bool met = true;
    for (const auto& t : targets) {
        std::ostringstream text;
        text << (t.at_least ? ">= " : "<= ") << t.limit;
        spec[t.field] = text.str();
        const Json* v = find_path(line, t.field);
        if (v == nullptr || !v->is_number()) {
            met = false;
            continue;
        }
        double x = v->get<double>();
        met = met && (t.at_least ? x >= t.limit : x <= t.limit);
    }
    line["targets"] = spec;
    line["targets_met"] = met;
}

void emit(const Json& line) {
    Json tidied = tidy_all(line);
    std::cout << tidied.dump() << std::endl;
    emitted_lines().push_back(std::move(tidied));
}

const std::vector<Json>& emitted() { return emitted_lines(); }

void note(const std::string& text) { std::cerr << "[delayq-bench] " << text << std::endl; }

std::string payload16() { return "0123456789abcdef"; }

}  // namespace delayq::bench
