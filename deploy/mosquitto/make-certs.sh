#!/usr/bin/env bash
# Make a tournament's TLS files with openssl: a CA, the broker's certificate, and one client
# certificate per name (the hall and each table).
#
#   deploy/mosquitto/make-certs.sh OUT_DIR BROKER_HOST_OR_IP hall table-1 table-2 ...
#
# Writes OUT_DIR/ca.crt ca.key broker.crt broker.key and NAME.crt NAME.key for each NAME.
# Keys are EC P-256 (quick to make on a Raspberry Pi); certificates are valid 400 days.
# Keep ca.key offline; give each table only ca.crt and its own NAME.crt and NAME.key.
set -euo pipefail
if [ $# -lt 2 ]; then
  echo "usage: $0 OUT_DIR BROKER_HOST_OR_IP [CLIENT_NAME...]" >&2
  exit 2
fi
out=$1; broker=$2; shift 2
mkdir -p "$out"
cd "$out"
umask 077
if [[ $broker =~ ^[0-9.]+$ || $broker == *:* ]]; then san="IP:$broker"; else san="DNS:$broker"; fi

key() { openssl ecparam -name prime256v1 -genkey -noout -out "$1" 2>/dev/null; }

if [ ! -f ca.crt ]; then
  key ca.key
  openssl req -x509 -new -key ca.key -sha256 -days 400 -subj "/CN=dicetable tournament CA" \
    -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" \
    -out ca.crt
fi

sign() {  # sign NAME with the CA; $2: the extensions
  key "$1.key"
  openssl req -new -key "$1.key" -subj "/CN=$1" -out "$1.csr"
  printf '%s\n' "$2" > "$1.ext"
  openssl x509 -req -in "$1.csr" -CA ca.crt -CAkey ca.key -CAcreateserial -sha256 -days 400 \
    -extfile "$1.ext" -out "$1.crt" 2>/dev/null
  rm -f "$1.csr" "$1.ext"
}

sign broker "subjectAltName=$san
extendedKeyUsage=serverAuth"
for name in "$@"; do
  sign "$name" "extendedKeyUsage=clientAuth"
done
chmod 644 ca.crt ./*.crt
echo "made $(ls -- *.crt | tr '\n' ' ')in $out"
