module github.com/meridian-platform/meridian-go

go 1.19
