package traceview_test

import (
	"fmt"

	"github.com/murmur-go/mur/runtime/traceview"
)

func ExampleDuration() {
	for _, ms := range []int64{1240, 65000, 3723000} {
		fmt.Println(traceview.Duration(ms))
	}
	// Output:
	// 1.2s
	// 1m05s
	// 1h02m
}
