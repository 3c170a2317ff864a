# Sourced by scripts/install-xla.sh and scripts/install-pytools.sh: where a pinned tool tree is installed.
#
# A tree is installed once per machine into the user's cache, ${ORYX_TOOL_CACHE:-~/.cache/oryx}/NAME-KEY
# (KEY: a hash of the pinned versions; like pip's and Go's module caches it outlives a clone), and the
# project-local, git-ignored path (.pytools, .xla/cpu) is a symbolic link to it: a fresh clone on a machine
# that has installed the same pins before links it in a few milliseconds instead of spending 15 s (XLA)
# and 100 s (the interop packages) in pip. ORYX_TOOL_CACHE=off installs into the project-local path
# itself, as before. Nothing is shared between different pins: a change of version is a new KEY.
#
# tool_tree NAME KEY LOCAL: prints the directory to install into or use (the cache entry, or LOCAL when
# the cache is off) and makes LOCAL point at it.
tool_tree() {
  local name=$1 key=$2 local_path=$3
  local cache=${ORYX_TOOL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/oryx}
  if [[ $cache == off ]]; then
    [[ -L $local_path ]] && rm -f "$local_path"
    echo "$local_path"
    return
  fi
  local tree=$cache/$name-$key
  mkdir -p "$cache" "$(dirname "$local_path")"
  # A real directory from an install before the cache existed moves into the cache when the cache has no
  # entry for these pins (the caller's stamp check then decides whether it is complete), else goes.
  if [[ -e $local_path && ! -L $local_path ]]; then
    if [[ ! -e $tree ]]; then
      mv "$local_path" "$tree.tmp.$$" && mv -T "$tree.tmp.$$" "$tree" 2>/dev/null || rm -rf "$tree.tmp.$$"
    fi
    rm -rf "$local_path"
  fi
  ln -sfn "$tree" "$local_path"
  echo "$tree"
}
