module kbloom.dev/kbloom

go 1.19
