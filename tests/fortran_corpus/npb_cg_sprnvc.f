c     In the style of NAS CG's sprnvc (not a copy). Exercises: a backward
c     GOTO loop (`100 continue ... goto 100`), an inner forward GOTO that
c     skips duplicates, int() of a real, a function of the same file
c     (icnvrt), integer work arrays, trailing RETURN.
c corpus: --function sprnvc --sizes n=8,nz=4,nn1=8 --wrt v --of v
      subroutine sprnvc( n, nz, nn1, v, iv, vecloc, ivecloc )
      implicit none
      double precision v(*), vecloc(n)
      integer n, nz, nn1, iv(*), ivecloc(n)
      integer nzv, ii, i, icnvrt
      double precision vecelt, vecloc0
      external icnvrt

      nzv = 0
      vecloc0 = 0.3141592653589793d0

100   continue
      if (nzv .ge. nz) goto 110
      vecloc0 = mod(vecloc0 * 3.7d0 + 0.1d0, 1.0d0)
      vecelt = vecloc0
      i = icnvrt(vecloc0, nn1) + 1
      if (i .gt. n) goto 100

      do ii = 1, nzv
         if (iv(ii) .eq. i) goto 100
      enddo
      nzv = nzv + 1
      v(nzv) = v(nzv) * vecelt
      iv(nzv) = i
      goto 100

110   continue
      return
      end

      function icnvrt(x, ipwr2)
      implicit none
      double precision x
      integer ipwr2, icnvrt
      icnvrt = int(ipwr2 * x)
      return
      end
