/*
 * digest_vectors.c: the known answers of digest_vectors.h.
 */
#include "digest_vectors.h"

#include <string.h>

static const sha256_vector sha256[] = {
    {"", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
    {"abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
    {"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
     "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"},
};

static const hmac_vector hmac[] = {
    {{NULL, 0x0b, 20},
     {"Hi There", 0, 0},
     "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"},
    {{"Jefe", 0, 0},
     {"what do ya want for nothing?", 0, 0},
     "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"},
    {{NULL, 0xaa, 20},
     {NULL, 0xdd, 50},
     "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe"},
    {{NULL, 0xaa, 131},
     {"Test Using Larger Than Block-Size Key - Hash Key First", 0, 0},
     "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"},
    {{NULL, 0xaa, 131},
     {"This is a test using a larger than block-size key and a larger "
      "than block-size data. The key needs to be hashed before being used "
      "by the HMAC algorithm.",
      0, 0},
     "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2"},
};

const sha256_vector *sha256_vectors(size_t *n)
{
    *n = sizeof sha256 / sizeof sha256[0];
    return sha256;
}

const hmac_vector *hmac_vectors(size_t *n)
{
    *n = sizeof hmac / sizeof hmac[0];
    return hmac;
}

size_t vector_bytes_get(const vector_bytes *b, uint8_t out[256])
{
    size_t n = b->text != NULL ? strlen(b->text) : b->n;

    if (b->text != NULL)
        memcpy(out, b->text, n);
    else
        memset(out, b->byte, n);
    return n;
}
