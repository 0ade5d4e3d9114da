// The bad-input catalogue: every input class of issue 5's list, through the library and the
// command line. Which inputs are valid follows src/validate.cpp and docs/design.md section 8
// (limits). The rows are built by topic in catalogue_*.cpp.
#include "fault/limits/bad_input_catalogue.hpp"

#include "fault/limits/catalogue_support.hpp"

namespace delayq::test {

std::vector<CatalogueCase> bad_input_catalogue() {
    using namespace catalogue;
    Rows rows;
    payload_rows(rows);
    delay_rows(rows);
    at_rows(rows);
    expire_rows(rows);
    reschedule_rows(rows);
    nack_rows(rows);
    visibility_rows(rows);
    attempts_rows(rows);
    batch_rows(rows);
    queue_name_rows(rows);
    id_rows(rows);
    return rows;
}

}  // namespace delayq::test
