/*
 * doc_dict.h: the dictionaries stored documents are packed with
 * (doc_dict.c).  Included by no file outside db/.
 */
#ifndef UMPIRE_DOC_DICT_H
#define UMPIRE_DOC_DICT_H

#include <stddef.h>

extern const char db_doc_dict_v1[];
extern const size_t db_doc_dict_v1_len;

#endif
