# Berth's image: one static binary, `berth manager` by default.
#
#   docker build -t ghcr.io/berth-io/berth:dev --build-arg VERSION=dev --build-arg COMMIT=$(git rev-parse HEAD) .
#
# Builds for the platform of `docker buildx build --platform`.

# The Go of go.mod's toolchain line (the golang image sets GOTOOLCHAIN=local).
FROM --platform=$BUILDPLATFORM golang:1.26.10 AS builder
ARG TARGETOS=linux
ARG TARGETARCH
ARG VERSION=""
ARG COMMIT=""
WORKDIR /workspace

# Modules first, so that source edits reuse the download layer.
COPY go.mod go.sum ./
RUN go mod download

# Only the packages the binary is built from (not bin/, test/ or docs/);
# test/imagebuild builds the binary from exactly these lines.
COPY cmd/ cmd/
COPY api/ api/
COPY controllers/ controllers/
COPY internal/ internal/
COPY scheduler/ scheduler/
# The CRDs are embedded for `berth validate` (config/crd/crds.go).
COPY config/crd/ config/crd/
RUN CGO_ENABLED=0 GOOS=${TARGETOS} GOARCH=${TARGETARCH} \
    go build -trimpath -ldflags "-s -w -X main.gitVersion=${VERSION} -X main.gitCommit=${COMMIT}" -o /berth ./cmd/berth

# distroless/static:nonroot: no shell, no package manager, user 65532.
FROM gcr.io/distroless/static:nonroot
COPY --from=builder /berth /berth
USER 65532:65532
ENTRYPOINT ["/berth", "manager"]
