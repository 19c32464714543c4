# Sourced by the clients' generate.sh (Go, Java): sets `py`, the Python with grpc_tools ($PYTHON,
# else the repository's .venv), and `wkt`, grpc_tools' copy of the well-known types' .proto
# files. Expects `repo` (the repository root); exits 2 when that Python has no grpc_tools.
py=${PYTHON:-$repo/.venv/bin/python}
if ! "$py" -c 'import grpc_tools' 2>/dev/null; then
  echo "generate.sh: $py has no grpc_tools (run 'make install' first, or set PYTHON)" >&2
  exit 2
fi
wkt=$("$py" -c 'import grpc_tools, os; print(os.path.join(os.path.dirname(grpc_tools.__file__), "_proto"))')
