-- @include fold
return fold(KEYS, ARGV)
