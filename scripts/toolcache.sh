# Sourced by scripts/install-xla.sh and scripts/install-pytools.sh: where a pinned tool tree is installed.
#
# A tree is installed once per machine into the user's cache, ${ORYX_TOOL_CACHE:-~/.cache/oryx}/NAME-KEY
# (KEY: a hash of the pinned versions; like pip's and Go's module caches it outlives a clone), and the
# project-local, git-ignored path (.pytools, .xla/cpu) is a symbolic link to it: a fresh clone on a machine
# that has installed the same pins before links it in a few milliseconds instead of spending 15 s (XLA)
# and 100 s (the interop packages) in pip. Nothing is shared between different pins: a change of version is
# a new KEY. ORYX_TOOL_CACHE=off installs into the project-local path itself, as does a machine whose cache
# directory cannot be written (no $HOME, a read-only home): the cache only ever saves time.
#
# The cache is safe against the two ways it could break a later run:
#   - a killed install: the caller installs into NAME-KEY.tmp.PID and renames it to NAME-KEY only once
#     complete, with its stamp file inside; a tree without the stamp is installed again, and the leftover
#     .tmp.* directories are removed by the next install;
#   - two checkouts installing at once (several clones or worktrees on one machine): the caller holds an
#     exclusive lock, NAME-KEY.lock, from before it looks at the tree until it exits (flock, when the machine
#     has it), so the second waits and then finds the tree installed instead of replacing it under the first.
#
# tool_tree NAME KEY LOCAL: sets tool_dir to the directory to install into or use (the cache entry, or LOCAL
# when the cache is off or unusable), makes LOCAL point at it and, in the cache, takes the lock (file
# descriptor 9, released when the calling script exits: call it directly, not in $(...)) and removes the
# leftovers of killed installs.
tool_tree() {
  local name=$1 key=$2 local_path=$3
  local cache=${ORYX_TOOL_CACHE:-${XDG_CACHE_HOME:-${HOME:+$HOME/.cache}}/oryx}
  mkdir -p "$(dirname "$local_path")"
  if [[ $cache == off || $cache == /oryx ]] || ! mkdir -p "$cache" 2>/dev/null || [[ ! -w $cache ]]; then
    [[ $cache == off || $cache == /oryx ]] || echo "tool cache $cache is not writable: installing into $local_path" >&2
    [[ -L $local_path ]] && rm -f "$local_path"
    tool_dir=$local_path
    return
  fi
  local tree=$cache/$name-$key
  if command -v flock >/dev/null; then
    exec 9>"$tree.lock"
    flock 9
    # Under the lock no other install of these pins is running: any .tmp.* is a killed install's.
    rm -rf "$tree".tmp.*
  fi
  # A real directory from an install before the cache existed moves into the cache when the cache has no
  # entry for these pins (the caller's stamp check then decides whether it is complete), else goes.
  if [[ -e $local_path && ! -L $local_path ]]; then
    if [[ ! -e $tree ]]; then
      mv "$local_path" "$tree.tmp.$$" && mv -T "$tree.tmp.$$" "$tree" 2>/dev/null || rm -rf "$tree.tmp.$$"
    fi
    rm -rf "$local_path"
  fi
  ln -sfn "$tree" "$local_path"
  tool_dir=$tree
}
