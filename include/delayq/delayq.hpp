#pragma once

// The whole public API of delayq.
#include "delayq/acl.hpp"
#include "delayq/client.hpp"
#include "delayq/consumer.hpp"
#include "delayq/delivery.hpp"
#include "delayq/error.hpp"
#include "delayq/leases.hpp"
#include "delayq/options.hpp"
#include "delayq/queue.hpp"
#include "delayq/queue_admin.hpp"
#include "delayq/queue_pattern.hpp"
#include "delayq/time.hpp"
#include "delayq/types.hpp"
#include "delayq/url.hpp"
#include "delayq/validate.hpp"
#include "delayq/version.hpp"
#include "delayq/waiter.hpp"
