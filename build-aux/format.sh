#!/usr/bin/env bash
# build-aux/format.sh: Sandpad's C in the one layout .clang-format describes.
#
#   build-aux/format.sh           rewrite every C file under src/ and tests/
#   build-aux/format.sh --check   change nothing; exit 1 naming the files that
#                                 differ (the meson test `clang-format`, suite
#                                 format), 77 (skipped) with the reason when the
#                                 pinned clang-format is not installed
#
# Pinned to clang-format 14, Debian 12's (build-aux/dev.sh installs it):
# each major version lays out some constructs its own way, so a tree
# formatted by one fails the check of another. Debian 13 has 19: there the
# check skips. CLANG_FORMAT names another binary to try first.
set -euo pipefail

pinned=14
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
check=false
case "${1:-}" in
  --check) check=true ;;
  "") ;;
  *)
    echo "usage: build-aux/format.sh [--check]" >&2
    exit 2
    ;;
esac

# Not able to run: a check is skipped (the machine lacks the tool, the code
# is not wrong); an apply refuses, never formats with another version.
cannot() {
  if $check; then
    echo "SKIP: $*"
    exit 77
  fi
  echo "format.sh: $*" >&2
  exit 1
}

tool=""
for candidate in "${CLANG_FORMAT:-}" "clang-format-$pinned" clang-format; do
  if [ -n "$candidate" ] && command -v "$candidate" >/dev/null 2>&1; then
    tool=$candidate
    break
  fi
done
[ -n "$tool" ] || cannot "clang-format $pinned is not installed (apt-get install clang-format-$pinned)"
version=$("$tool" --version)
major=$(sed -n 's/.*version \([0-9][0-9]*\)\..*/\1/p' <<<"$version")
[ "$major" = "$pinned" ] \
  || cannot "$tool is version ${major:-unknown} ($version); .clang-format is pinned to $pinned, whose layout differs"

cd "$top"
# Tracked files when this is a git checkout (no build trees, nothing
# generated); every file under the two folders otherwise (a release tarball).
files=()
if listed=$(git -C "$top" ls-files -- 'src/*.[ch]' 'tests/*.[ch]' 2>/dev/null) && [ -n "$listed" ]; then
  mapfile -t files <<<"$listed"
else
  mapfile -t files < <(find src tests -type f -name '*.[ch]' | sort)
fi
[ ${#files[@]} -gt 0 ] || cannot "no C files found under $top/src and $top/tests"

if ! $check; then
  "$tool" -i --style=file "${files[@]}"
  echo "format.sh: formatted ${#files[@]} files with clang-format $major"
  exit 0
fi

differ=()
for file in "${files[@]}"; do
  "$tool" --dry-run -Werror --style=file "$file" >/dev/null 2>&1 || differ+=("$file")
done
if [ ${#differ[@]} -eq 0 ]; then
  echo "all ${#files[@]} C files under src/ and tests/ are as .clang-format says (clang-format $major)"
  exit 0
fi
echo "${#differ[@]} of ${#files[@]} C files differ from .clang-format (clang-format $major);"
echo "build-aux/format.sh rewrites them. The files:"
printf '  %s\n' "${differ[@]}"
echo "The first places, in the first of them:"
"$tool" --dry-run --style=file "${differ[0]}" 2>&1 | head -n 30 || true
exit 1
