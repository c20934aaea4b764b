package murhome_test

import (
	"fmt"

	"github.com/murmur-go/mur/runtime/murhome"
)

func ExampleMatchSuffix() {
	ids := []string{
		"ses_019a1000000270008000000000003e4b",
		"ses_019a10000001700080000000000013e4",
	}
	fmt.Println(murhome.MatchSuffix(ids, "3E4B"))
	fmt.Println(len(murhome.MatchSuffix(ids, "e4b")))
	// Output:
	// [ses_019a1000000270008000000000003e4b]
	// 0
}
