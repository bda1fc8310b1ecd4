module github.com/latgate/latgate

go 1.26

require github.com/google/go-cmp v0.7.0
