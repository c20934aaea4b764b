// Command hello is the binary testmur's tests build: it prints "hello".
package main

import "fmt"

func main() { fmt.Println("hello") }
