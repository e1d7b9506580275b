-- The first statements of the library's call (decide-script.ts puts them at the top of
-- `decide_call(KEYS, ARGV)`, before decide-call.lua). A library's chunk runs once, at load, when
-- Redis lets it read no globals, and its locals outlive every call: the prelude's hot locals are
-- read here at the first call, and its per-call state made fresh at every one. A script needs none of it (its chunk runs from
-- the top on every call, its hot locals initialised where declared), and does not hold these
-- lines: a closure over them, even one never called, costs a script 5-17k instructions per call
-- (Lua finds each upvalue in a list of every open one).
--
-- Uses     globals, call, pcall_redis, tonumber, type, floor, ceil, max, min, byte, format,
--          match, sub, uncached, expiry_form, cached, dirty, dirtyOrder, lone_specs
-- Once: reading them at every call cost Redis about 4,000 instructions (a library's globals are
-- a protected table), measured with `npm run bench:lone:instructions -- --redis ours`.
if not call then
  call, pcall_redis, tonumber, type, floor, ceil, max, min, byte, format, match, sub = globals()
  lone_specs = {}
end
uncached, expiry_form = true, false
cached, dirty, dirtyOrder = nil, nil, nil
