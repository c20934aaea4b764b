# mur in a container: a static binary on a small image.
#
#   docker build -t mur .
#   docker run --rm -v "$PWD:/work" -w /work mur run --manifest murmur.yaml --bind 0.0.0.0
#
# A door binds 127.0.0.1 unless --bind says otherwise (door.md DOOR-1); to
# reach it from outside the container, bind 0.0.0.0, publish the port and
# declare network.authentication (W-SEC-032).

FROM golang:1.26 AS build
WORKDIR /src
# Modules first, so source edits reuse the download layer.
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=0.1.0
# The kube tag links the Kubernetes client: a member pod of a formation on
# Kubernetes starts `mur __kube-member` (docs/kubernetes.md). A plain
# `go build ./cmd/mur` leaves it out.
RUN CGO_ENABLED=0 go build -trimpath -buildvcs=false -tags kube \
      -ldflags "-s -w -X main.version=${VERSION}" \
      -o /out/mur ./cmd/mur

# Alpine rather than distroless: capsules run shell binaries through their
# tools (capabilities.shell.allow), which need a shell and coreutils;
# ca-certificates serve the openai and anthropic drivers.
FROM alpine:3.22
RUN apk add --no-cache ca-certificates \
 && adduser -D -h /home/mur mur
COPY --from=build /out/mur /usr/local/bin/mur
USER mur
ENV MURMUR_HOME=/home/mur/.murmur
WORKDIR /home/mur
ENTRYPOINT ["mur"]
