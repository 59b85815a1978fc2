return fold(KEYS, ARGV)
