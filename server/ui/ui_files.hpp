#pragma once

#include <span>
#include <string_view>

// The dashboard's static files (server/ui/), embedded at build time by cmake/embed_files.cmake
// and served by routes/ui_routes.cpp.
namespace delayq::server::ui {

struct UiFile {
    std::string_view name;   // "app.js": a file of server/ui/, no directories
    std::string_view bytes;  // the file as it is
    std::string_view etag;   // quoted, from the file's SHA-256
};

// Every file, sorted by name.
std::span<const UiFile> ui_files();

}  // namespace delayq::server::ui
