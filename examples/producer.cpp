// A minimal producer: sends one message, due after a delay, and prints its id.
//
// usage: delayq_example_producer QUEUE PAYLOAD [DELAY_MS] [REDIS_URL]
//        (default URL: $DELAYQ_REDIS_URL, else redis://127.0.0.1:6379)
#include <chrono>
#include <cstdio>
#include <delayq/delayq.hpp>
#include <string>

#include "redis_url.hpp"

int main(int argc, char** argv) {
    if (argc < 3) {
        std::fprintf(stderr, "usage: %s QUEUE PAYLOAD [DELAY_MS] [REDIS_URL]\n", argv[0]);
        return 2;
    }
    const std::string url = example_redis_url(argc, argv, 4);
    try {
        const std::chrono::milliseconds delay(argc > 3 ? std::stoll(argv[3]) : 0);
        delayq::Client client{url};
        auto queue = client.queue(argv[1]);
        const delayq::SendResult r = queue.send(argv[2], {.delay = delay});
        std::printf("%s\n", r.id.c_str());
        return 0;
    } catch (const delayq::InvalidArgument& e) {
        std::fprintf(stderr, "bad input: %s\n", e.what());
        return 2;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "error: %s\n", e.what());
        return 1;
    }
}
