/*
 * version.h: the service's version, as --version, the startup line and
 * /health report it.
 */
#ifndef UMPIRE_VERSION_H
#define UMPIRE_VERSION_H

#define UMPIRE_VERSION "0.1.0"

#endif
