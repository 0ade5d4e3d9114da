# How src/lua/ files name the helpers they use: lines `-- @include lib/NAME.lua`, looked up in
# INCLUDE_DIRS (a list; a name found in two of them is an error), each file once, every file
# after the ones it includes. Included by cmake/embed_lua.cmake: the per-script texts and the
# function library splice the same files in the same order.

# The include names in `text` (a file's whole text), in order. Fails on a line that mentions
# @include in any other form, so that a typo is not silently ignored.
function(lua_includes text from out_var)
    string(REGEX MATCHALL "\n--[ \t]*@include[^\n]*" lines "\n${text}")
    set(names "")
    foreach(line IN LISTS lines)
        if(NOT line MATCHES "^\n-- @include ([A-Za-z0-9_/]+\\.lua)$")
            string(STRIP "${line}" line)
            message(FATAL_ERROR "${from}: malformed include line '${line}' "
                                "(expected '-- @include lib/NAME.lua')")
        endif()
        list(APPEND names "${CMAKE_MATCH_1}")
    endforeach()
    set(${out_var} "${names}" PARENT_SCOPE)
endfunction()

# The path of include `name`, from `from`.
function(lua_find name from out_var)
    set(found "")
    foreach(dir IN LISTS INCLUDE_DIRS)
        if(EXISTS "${dir}/${name}")
            if(found)
                message(FATAL_ERROR "${from}: '${name}' is both ${found} and ${dir}/${name}")
            endif()
            set(found "${dir}/${name}")
        endif()
    endforeach()
    if(NOT found)
        list(JOIN INCLUDE_DIRS ", " dirs)
        message(FATAL_ERROR "${from}: included file '${name}' not found in ${dirs}")
    endif()
    set(${out_var} "${found}" PARENT_SCOPE)
endfunction()

# Appends to `order` (in the caller's scope) the files `path` includes, depth first, each once,
# each after the ones it includes. `chain` is the include path that led to `path`.
function(lua_collect path chain)
    if(path IN_LIST chain)
        list(APPEND chain "${path}")
        list(JOIN chain " -> " cycle)
        message(FATAL_ERROR "include cycle: ${cycle}")
    endif()
    if(path IN_LIST order)
        return()
    endif()
    file(READ "${path}" text)
    lua_includes("${text}" "${path}" names)
    foreach(name IN LISTS names)
        lua_find("${name}" "${path}" dep)
        lua_collect("${dep}" "${chain};${path}")
    endforeach()
    list(APPEND order "${path}")
    set(order "${order}" PARENT_SCOPE)
endfunction()

# `text` without its include lines.
function(lua_strip_includes text out_var)
    string(REGEX REPLACE "\n-- @include [^\n]*" "" stripped "\n${text}")
    string(SUBSTRING "${stripped}" 1 -1 stripped)
    set(${out_var} "${stripped}" PARENT_SCOPE)
endfunction()

# The script at `path`: its first line, which must be a `#!lua` shebang (Redis 7 reads script
# flags from it), and the rest of its text.
function(lua_read_script path shebang_var rest_var)
    file(READ "${path}" text)
    string(FIND "${text}" "\n" first_newline)
    string(SUBSTRING "${text}" 0 ${first_newline} shebang)
    if(NOT shebang MATCHES "^#!lua")
        message(FATAL_ERROR "${path}: the first line must be a '#!lua' shebang")
    endif()
    math(EXPR rest_start "${first_newline} + 1")
    string(SUBSTRING "${text}" ${rest_start} -1 rest)
    set(${shebang_var} "${shebang}" PARENT_SCOPE)
    set(${rest_var} "${rest}" PARENT_SCOPE)
endfunction()
