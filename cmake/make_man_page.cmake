# Writes delayq.1 with help2man: the top-level --help, then a COMMANDS section with the --help of
# every command and of every command of a group (found in the help texts themselves).
# Inputs (-D): DELAYQ (the binary), HELP2MAN, OUTPUT, VERSION.
cmake_minimum_required(VERSION 3.21)

# The --help text of `delayq ARGS...`.
function(help_text out_var)
    execute_process(COMMAND "${DELAYQ}" ${ARGN} --help
        OUTPUT_VARIABLE text ERROR_VARIABLE err RESULT_VARIABLE rc)
    if(NOT rc EQUAL 0)
        list(JOIN ARGN " " args)
        message(FATAL_ERROR "delayq ${args} --help failed (${rc}): ${err}")
    endif()
    set(${out_var} "${text}" PARENT_SCOPE)
endfunction()

# The command names a help text lists, in its section whose title ends with "ommands:" (CLI11
# calls them SUBCOMMANDS).
function(listed_commands text out_var)
    string(REPLACE ";" "," text "${text}")
    string(REPLACE "\n" ";" lines "${text}")
    set(in_section FALSE)
    set(names "")
    foreach(line IN LISTS lines)
        if(line MATCHES "^[A-Za-z ]*(OMMANDS|ommands):?$")
            set(in_section TRUE)
        elseif(in_section AND line MATCHES "^  +([a-z][a-z0-9-]*)( |$)")
            list(APPEND names "${CMAKE_MATCH_1}")
        elseif(in_section AND NOT line MATCHES "^ ")
            set(in_section FALSE)
        endif()
    endforeach()
    set(${out_var} "${names}" PARENT_SCOPE)
endfunction()

# `text` as literal roff lines.
function(roff_literal text out_var)
    string(REPLACE "\\" "\\e" text "${text}")
    string(REGEX REPLACE "(^|\n)([.'])" "\\1\\\\&\\2" text "${text}")
    set(${out_var} "${text}" PARENT_SCOPE)
endfunction()

set(include "[COMMANDS]\nEach command's own help, as `delayq COMMAND --help` prints it.\n")
help_text(top)
listed_commands("${top}" commands)
foreach(command IN LISTS commands)
    help_text(text ${command})
    roff_literal("${text}" literal)
    string(APPEND include ".SS \"delayq ${command}\"\n.nf\n${literal}\n.fi\n")
    listed_commands("${text}" subcommands)
    foreach(sub IN LISTS subcommands)
        help_text(sub_text ${command} ${sub})
        roff_literal("${sub_text}" literal)
        string(APPEND include ".SS \"delayq ${command} ${sub}\"\n.nf\n${literal}\n.fi\n")
    endforeach()
endforeach()
get_filename_component(dir "${OUTPUT}" DIRECTORY)
file(MAKE_DIRECTORY "${dir}")
file(WRITE "${OUTPUT}.include" "${include}")
execute_process(
    COMMAND "${HELP2MAN}" --no-info --no-discard-stderr "--version-string=${VERSION}"
            "--name=delayed messages on Redis" "--include=${OUTPUT}.include"
            "--output=${OUTPUT}" "${DELAYQ}"
    RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
    message(FATAL_ERROR "help2man failed (${rc}): ${err}")
endif()
# Debian installs man pages compressed with gzip -9n (no name or time stamp: reproducible).
execute_process(COMMAND gzip -9nkf "${OUTPUT}" RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
    message(FATAL_ERROR "gzip -9n of the man page failed (${rc})")
endif()
