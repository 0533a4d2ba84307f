// ClientHello templates of the C++ tests (the line form of native/hello-template.ts): a small one for the test
// vectors, and a Chrome-shaped one; neither is the shipped Chrome template, so a new Chrome changes no test.
#pragma once

namespace test_templates {

inline const char* const kVector =
    "record_version 0301\n"
    "legacy_version 0303\n"
    "cipher_suites {cipher}13011302\n"
    "compression 00\n"
    "ext {ext1} fixed\n"
    "ext 0000 server_name\n"
    "ext 000a fixed 0004{group}001d\n"
    "ext 0033 key_share {group} 001d\n"
    "ext 002b fixed 04{version}0304\n"
    "ext {ext2} fixed 00\n"
    "permute shuffle-all-but-grease\n";

inline const char* const kChromeLike =
    "record_version 0301\n"
    "legacy_version 0303\n"
    "cipher_suites {cipher}130113021303c02bc02fc02cc030cca9cca8c013c014009c009d002f0035\n"
    "compression 00\n"
    "ext {ext1} fixed\n"
    "ext 44cd fixed 0003026832\n"
    "ext ff01 fixed 00\n"
    "ext 0012 fixed\n"
    "ext 0010 fixed 000c02683208687474702f312e31\n"
    "ext 000d fixed 0018{sigalg}09040905090604030804040105030805050108060601\n"
    "ext 0023 fixed\n"
    "ext 000b fixed 0100\n"
    "ext 001b fixed 020002\n"
    "ext 0005 fixed 0100000000\n"
    "ext fe0d ech_grease 0001 0001 144 176 208 240\n"
    "ext 0033 key_share {group} 11ec 001d\n"
    "ext 0000 server_name\n"
    "ext 002b fixed 06{version}03040303\n"
    "ext 0017 fixed\n"
    "ext 000a fixed 000a{group}11ec001d00170018\n"
    "ext 002d fixed 0101\n"
    "ext {ext2} fixed 00\n"
    "permute shuffle-all-but-grease\n";

}  // namespace test_templates
