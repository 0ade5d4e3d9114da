#pragma once

// The model test's only source of randomness: one seeded generator, so that a seed replays a
// run step for step.
#include <cstddef>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <vector>

namespace delayq::model {

class Rng {
  public:
    explicit Rng(std::uint64_t seed) : gen_(seed) {}

    // Uniform in [lo, hi].
    std::int64_t between(std::int64_t lo, std::int64_t hi) {
        return std::uniform_int_distribution<std::int64_t>(lo, hi)(gen_);
    }
    std::size_t index(std::size_t size) {
        if (size == 0) throw std::logic_error("Rng::index of nothing");
        return static_cast<std::size_t>(between(0, static_cast<std::int64_t>(size) - 1));
    }
    bool chance(double p) { return std::uniform_real_distribution<double>(0.0, 1.0)(gen_) < p; }
    double real(double lo, double hi) {
        return std::uniform_real_distribution<double>(lo, hi)(gen_);
    }
    template <class T>
    const T& pick(const std::vector<T>& items) {
        return items[index(items.size())];
    }

  private:
    std::mt19937_64 gen_;
};

}  // namespace delayq::model
