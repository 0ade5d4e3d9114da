// A minimal consumer: prints each message of a queue as it falls due, with how late it came by
// the Redis server's clock, and acks it. Ctrl-C stops it gracefully.
//
// usage: delayq_example_consumer QUEUE [REDIS_URL]
//        (default URL: $DELAYQ_REDIS_URL, else redis://127.0.0.1:6379)
#include <cstdio>
#include <delayq/delayq.hpp>
#include <string>

#include "redis_url.hpp"

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: %s QUEUE [REDIS_URL]\n", argv[0]);
        return 2;
    }
    const std::string url = example_redis_url(argc, argv, 2);
    try {
        delayq::Client client{url};
        client.ping();  // fail now, not in a background thread, if Redis is not there
        delayq::ConsumerOptions options;
        options.concurrency = 4;
        options.stop_on_signals = true;
        delayq::Consumer consumer{
            client.leases(argv[1]),
            [](const delayq::Delivery& d) -> delayq::Outcome {
                // printf of one line is atomic enough for an example.
                std::printf("%s attempt %d, %lld ms late: %s\n", d.id().c_str(), d.attempt(),
                            static_cast<long long>(d.lateness().count()), d.payload().c_str());
                std::fflush(stdout);
                return delayq::Ack{};
            },
            options};
        consumer.run();  // until SIGINT or SIGTERM
        return 0;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "error: %s\n", e.what());
        return 1;
    }
}
