package main

// version is the collector release every go.opentelemetry.io/collector module and every
// opentelemetry-collector-contrib module in go.mod is at.
const version = "0.157.0"
