module kbloom.dev/bench/gobind-exists

go 1.19

require kbloom.dev/kbloom v0.0.0

replace kbloom.dev/kbloom => ../../bindings/go/kbloom
