#!/bin/sh
# A stand-in for a lab's runner in the grader's host tests, in POSIX sh so that
# it runs in the sandbox whatever Python this machine has (or hides in /home):
#   fake_runner.sh --library <build> --socket 3
# It "loads" the build (reads it, as dlopen would) and says so on the socket.
# A build with the marker FAKE_NOT_LOADABLE fails to load, as one whose table
# names a missing function does.
if [ "$#" -ne 4 ] || [ "$1" != --library ] || [ "$3" != --socket ]; then
  echo "usage: $0 --library <lib.so> --socket <fd>" >&2
  exit 2
fi
if ! head -c 1 "$2" >/dev/null 2>&1; then
  echo "fake runner: dlopen $2: cannot open shared object file" >&2
  exit 1
fi
if grep -q FAKE_NOT_LOADABLE "$2"; then
  echo "fake runner: $(basename "$2"): undefined symbol: memlab_lab1_api" >&2
  exit 1
fi
eval "echo loaded >&$4"
